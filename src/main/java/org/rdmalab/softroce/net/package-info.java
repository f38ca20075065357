/**
 * Where soft0's datagrams travel, apart from what they carry: the {@link
 * org.rdmalab.softroce.net.Fabric} a device binds its address on, with its two kinds (real UDP,
 * {@link org.rdmalab.softroce.net.UdpFabric}; an in-memory network with a virtual clock for tests,
 * {@link org.rdmalab.softroce.net.SimulatedNetwork}), the {@link org.rdmalab.softroce.net.EventLoop}
 * that owns a device's transport state, and {@link org.rdmalab.softroce.net.WireSocket} (with the
 * jnr-ffi interface {@link org.rdmalab.softroce.net.SocketCalls}), which sets a UDP socket so that
 * the kernel sends the IPv4 header the ICRC covers (ID 0, DF) and kernel rxe takes soft0's packets.
 * Nothing here knows RoCE: a fabric moves byte arrays between {@code ip:port} pairs, and the
 * transport above ({@code org.rdmalab.softroce}) encodes and decodes them.
 *
 * <p>Threads: each endpoint of a {@code UdpFabric} has one loop thread (named by the device, like
 * {@code soft0@127.0.0.1 transport}) that waits on a selector for datagrams, handed-over tasks and
 * timers. One thread at a time is on the loop ({@link org.rdmalab.softroce.net.EventLoop#inLoop}):
 * the loop thread, or a caller that found the loop free and took a turn itself
 * ({@link org.rdmalab.softroce.net.EventLoop#runOrExecute},
 * {@link org.rdmalab.softroce.net.EventLoop#progress}); only that thread sends, receives, runs
 * timers and calls the {@link org.rdmalab.softroce.net.Fabric.Receiver}. {@code execute},
 * {@code executeOnce} and the caller-turn methods are thread-safe; everything else is called on
 * the loop. A {@code SimulatedNetwork} is single-threaded: the thread that drives it is always on
 * every endpoint's loop. {@code WireSocket} is stateless apart from its once-loaded native library.
 */
package org.rdmalab.softroce.net;
