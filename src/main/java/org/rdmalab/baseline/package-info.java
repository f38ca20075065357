/**
 * The plain-UDP yardsticks that RDMA is measured against, below both {@code lab} and
 * {@code bench}: {@link org.rdmalab.baseline.Datagrams} (a message as datagrams of the path MTU
 * behind a 12-byte header, busy-polled as a CQ is), {@link org.rdmalab.baseline.PingPong} (the
 * plain UDP ping-pong and RC's datagrams alone, for {@code demo --baseline} and the software
 * device's speed program) and {@link org.rdmalab.baseline.RoundTrips} (a ping-pong's round trips
 * in an HdrHistogram). {@code bench --baseline} sends its traffic through {@code Datagrams}.
 *
 * <p>Uses only {@code verbs} (the busy poll's pause) and the JDK: no JavaFX, no backend, nothing of
 * {@code lab}, {@code bench} or {@code control}. Thread rules: an instance is used by one thread,
 * which blocks in it (busy, with every wait bounded); the caller owns the socket.
 */
package org.rdmalab.baseline;
