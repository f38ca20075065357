/**
 * The command line (picocli): {@code devices}, {@code transition}, {@code loopback}, {@code demo},
 * {@code doctor}, {@code pcap} and {@code gui}. Each command prints one clear line on bad input and
 * exits 2 for usage errors, 1 for failures; stack traces only with {@code --verbose}. Commands run
 * on the main thread.
 */
package org.rdmalab.cli;
