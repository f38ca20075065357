/**
 * The TCP control plane: the out-of-band exchanges RDMA programs use to swap connection data before
 * their queue pairs can talk.
 *
 * <p>This package holds what the three formats share: {@link org.rdmalab.control.ConnectionData}
 * (the common form each format maps to and from), the transport ({@link
 * org.rdmalab.control.ControlListener} accepts exactly one client, {@link
 * org.rdmalab.control.ControlChannel} connects, writes each message in one write and reads exact
 * byte counts), {@link org.rdmalab.control.Timeouts} and {@link org.rdmalab.control.ControlException},
 * whose messages are one line ready for users, and {@link org.rdmalab.control.ControlProtocol}, the
 * three formats by their {@code --protocol} names with default ports. The formats live in the subpackages {@code seed} (the
 * seed's packed 34-byte block and one-byte syncs), {@code pingpong} (ibv_rc_pingpong's 52-byte text)
 * and {@code lab} (RDMA Lab's framed, versioned protocol); {@code perftest} holds perftest's exchange,
 * which {@code bench --perftest} speaks (not a {@code --protocol} of {@code demo}). Byte layouts:
 * {@code docs/protocol.md}.
 *
 * <p>Threads: nothing here starts a thread. Every call blocks the calling thread (never the JavaFX
 * thread) for at most its timeout: accept and connect use {@link org.rdmalab.control.Timeouts},
 * each read the channel's read timeout. A channel is used by one thread at a time; {@code close()}
 * may come from another thread to unblock it. Every socket is closed on every path: listeners after
 * their one accept, channels by their owner. The seed and pingpong exchanges borrow the caller's
 * channel, as does perftest's; a {@code LabConnection} owns its channel and closes it.
 *
 * <p>This package depends only on {@code org.rdmalab.verbs} value types (Gid, Mtu, QpType,
 * QpState), never on JavaFX, jnr or a backend.
 */
package org.rdmalab.control;
