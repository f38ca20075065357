package org.rdmalab.softroce.net;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device's UDP socket in memory, for {@link UdpSocket} and {@link UdpLoop}: what the device sends
 * is recorded, or refused while the socket is {@link #full} (as a non-blocking socket whose send
 * buffer has no room takes nothing); what the test {@link #arrive}s is handed out in order, each
 * sender's address as one object while the sender stays the same (as the JDK does); the selector
 * reports the key readable or writable by its interest set, waits until then, a {@link #wakeup}
 * or the timeout, and counts the wake-ups it was asked for.
 */
final class FakeUdp {

    static final InetSocketAddress LOCAL = new InetSocketAddress(address("10.0.0.9"), 4791);

    private final Object lock = new Object();
    private final ArrayDeque<Object[]> incoming = new ArrayDeque<>();
    private final Map<String, SocketAddress> senders = new HashMap<>();
    /** Each datagram sent, as "a.b.c.d:port [bytes]". */
    final List<String> sent = Collections.synchronizedList(new ArrayList<>());
    /** Sends refused: the send buffer has no room. */
    private boolean full;
    /** Thrown by the next send, once. */
    volatile IOException sendFailure;
    final AtomicInteger wakeups = new AtomicInteger();
    private boolean woken;
    final Channel channel = new Channel();
    final FakeSelector selector = new FakeSelector();
    final Key key = new Key();

    static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    UdpSocket socket() throws IOException {
        return new UdpSocket(channel, selector, key);
    }

    /** Queues a datagram from {@code address:port}. */
    void arrive(String address, int port, byte... bytes) {
        synchronized (lock) {
            SocketAddress from = senders.computeIfAbsent(address + ":" + port,
                    k -> new InetSocketAddress(address(address), port));
            incoming.add(new Object[] {from, bytes});
            lock.notifyAll();
        }
    }

    /** Fills the send buffer (sends refused) or makes room again. */
    void full(boolean now) {
        synchronized (lock) {
            full = now;
            lock.notifyAll();
        }
    }

    int waiting() {
        synchronized (lock) {
            return incoming.size();
        }
    }

    private int ready() {
        int interest = key.interest;
        int ready = 0;
        if ((interest & SelectionKey.OP_READ) != 0 && !incoming.isEmpty()) {
            ready |= SelectionKey.OP_READ;
        }
        if ((interest & SelectionKey.OP_WRITE) != 0 && !full) {
            ready |= SelectionKey.OP_WRITE;
        }
        return ready;
    }

    final class Channel extends DatagramChannel {
        boolean closed;

        Channel() {
            super(SelectorProvider.provider());
        }

        @Override
        public SocketAddress receive(ByteBuffer dst) {
            synchronized (lock) {
                Object[] next = incoming.poll();
                if (next == null) {
                    return null;
                }
                dst.put((byte[]) next[1]);
                return (SocketAddress) next[0];
            }
        }

        @Override
        public int send(ByteBuffer src, SocketAddress target) throws IOException {
            IOException failure = sendFailure;
            if (failure != null) {
                sendFailure = null;
                throw failure;
            }
            synchronized (lock) {
                if (full) {
                    return 0;
                }
            }
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            InetSocketAddress to = (InetSocketAddress) target;
            sent.add(to.getAddress().getHostAddress() + ":" + to.getPort() + " " + Arrays.toString(bytes));
            return bytes.length;
        }

        @Override
        public SocketAddress getLocalAddress() {
            return LOCAL;
        }

        @Override
        protected void implCloseSelectableChannel() {
            closed = true;
        }

        @Override
        protected void implConfigureBlocking(boolean block) {
        }

        @Override
        public DatagramChannel bind(SocketAddress local) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> DatagramChannel setOption(SocketOption<T> name, T value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> T getOption(SocketOption<T> name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Set<SocketOption<?>> supportedOptions() {
            return Set.of();
        }

        @Override
        public DatagramSocket socket() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isConnected() {
            return false;
        }

        @Override
        public DatagramChannel connect(SocketAddress remote) {
            throw new UnsupportedOperationException();
        }

        @Override
        public DatagramChannel disconnect() {
            return this;
        }

        @Override
        public SocketAddress getRemoteAddress() {
            return null;
        }

        @Override
        public int read(ByteBuffer dst) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MembershipKey join(InetAddress group, NetworkInterface interf) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MembershipKey join(InetAddress group, NetworkInterface interf, InetAddress source) {
            throw new UnsupportedOperationException();
        }
    }

    final class FakeSelector extends AbstractSelector {
        private final Set<SelectionKey> selected = new HashSet<>();
        boolean closed;

        FakeSelector() {
            super(SelectorProvider.provider());
        }

        @Override
        public int selectNow() {
            synchronized (lock) {
                return take(ready());
            }
        }

        @Override
        public int select(long timeout) throws IOException {
            long deadline = System.nanoTime() + (timeout == 0 ? Long.MAX_VALUE / 2 : timeout * 1_000_000);
            synchronized (lock) {
                while (ready() == 0 && !woken) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        lock.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                woken = false;
                return take(ready());
            }
        }

        private int take(int ready) {
            key.ready = ready;
            if (ready == 0) {
                return 0;
            }
            selected.add(key);
            return 1;
        }

        @Override
        public int select() throws IOException {
            return select(0);
        }

        @Override
        public Selector wakeup() {
            wakeups.incrementAndGet();
            synchronized (lock) {
                woken = true;
                lock.notifyAll();
            }
            return this;
        }

        @Override
        public Set<SelectionKey> keys() {
            return Set.of(key);
        }

        @Override
        public Set<SelectionKey> selectedKeys() {
            return selected;
        }

        @Override
        protected void implCloseSelector() {
            closed = true;
        }

        @Override
        protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
            throw new UnsupportedOperationException();
        }
    }

    final class Key extends SelectionKey {
        volatile int interest = OP_READ;
        volatile int ready;

        @Override
        public SelectableChannel channel() {
            return channel;
        }

        @Override
        public Selector selector() {
            return selector;
        }

        @Override
        public boolean isValid() {
            return !selector.closed;
        }

        @Override
        public void cancel() {
        }

        @Override
        public int interestOps() {
            return interest;
        }

        @Override
        public SelectionKey interestOps(int ops) {
            synchronized (lock) {
                interest = ops;
                lock.notifyAll();
            }
            return this;
        }

        @Override
        public int readyOps() {
            return ready;
        }
    }
}
