/**
 * RDMA Lab's own control protocol, for RDMA Lab talking to RDMA Lab: a framing layer ({@link
 * org.rdmalab.control.lab.FrameCodec}: u32 length, payload, a size limit checked before allocating)
 * under a message layer ({@link org.rdmalab.control.lab.LabCodec}: u16 type, body). Message types
 * form an open value class ({@link org.rdmalab.control.lab.MessageType}), so a type from a newer
 * peer decodes to an {@link org.rdmalab.control.lab.UnknownMessage} that re-encodes unchanged.
 * {@link org.rdmalab.control.lab.LabConnection} runs a session: hello with magic and version,
 * connection data, step progress, QP states, named syncs, buffer snapshots, errors and bye, and
 * the facts {@code doctor} compares ({@link org.rdmalab.control.lab.Facts}).
 * Byte layouts: {@code docs/protocol.md}.
 *
 * <p>Threads: codecs are stateless. A connection is read by its own background reader thread
 * ({@code rdmalab-lab-reader <peer>}, daemon, joined by {@code close()}), which calls the listener
 * and the buffer source; one thread at a time calls the waiting methods, which take what the reader
 * queued and wait at most the channel's read timeout; any thread may send (sends are serialized).
 */
package org.rdmalab.control.lab;
