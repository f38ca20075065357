/**
 * perftest's TCP exchange ({@code ib_write_bw}, {@code ib_write_lat}, {@code ib_read_*}, {@code ib_send_*} and the rest of the suite, port
 * 18515): the version, system data and MTU swaps, the {@code LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:SRQN}
 * keys and the bandwidth report, byte for byte, so that {@code bench --perftest} and a real perftest
 * binary can be each other's peer.
 */
package org.rdmalab.control.perftest;
