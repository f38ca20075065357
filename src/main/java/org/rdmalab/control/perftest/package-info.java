/**
 * perftest's TCP exchange (port 18515, as {@code ib_write_*}, {@code ib_read_*}, {@code ib_send_*}
 * and {@code ib_atomic_*} speak it): the version, system data and MTU swaps, the
 * {@code LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID:SRQN} keys and the bandwidth report, byte for byte, so
 * that {@code bench --perftest} and a real perftest binary can be each other's peer.
 */
package org.rdmalab.control.perftest;
