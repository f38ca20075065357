/**
 * ibv_rc_pingpong's exchange, byte for byte: {@link org.rdmalab.control.pingpong.PingpongMessage},
 * the 52-byte {@code "%04x:%06x:%06x:%s"} text with its NUL, and {@link
 * org.rdmalab.control.pingpong.PingpongExchange}, the client-first sequence ending in
 * {@code "done\0"}, on TCP port 18515.
 *
 * <p>Threads: as {@code org.rdmalab.control}: calls block their thread up to the channel's read
 * timeout; one thread per exchange.
 */
package org.rdmalab.control.pingpong;
