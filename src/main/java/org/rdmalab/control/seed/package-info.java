/**
 * The seed demo's exchange, byte for byte: {@link org.rdmalab.control.seed.SeedBlock}, the packed
 * 34-byte big-endian {@code cm_con_data_t} (addr, rkey, qp_num, lid, gid), and {@link
 * org.rdmalab.control.seed.SeedExchange}, which writes the block in one write, reads the peer's 34
 * bytes and runs the one-byte syncs ('Q', 'R', 'W'; any value accepted).
 *
 * <p>Threads: as {@code org.rdmalab.control}: calls block their thread up to the channel's read
 * timeout; one thread per exchange.
 */
package org.rdmalab.control.seed;
