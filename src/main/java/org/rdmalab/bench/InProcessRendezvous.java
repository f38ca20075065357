package org.rdmalab.bench;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Exchanger;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmalab.control.ConnectionData;

/**
 * The two sides of a loopback run, one thread each in this process, meeting through an
 * {@link Exchanger}. {@link #pair} gives the two ends.
 */
final class InProcessRendezvous implements Rendezvous {

    private final Exchanger<Object> exchanger;
    private final String peerAddress;

    private InProcessRendezvous(Exchanger<Object> exchanger, String peerAddress) {
        this.exchanger = exchanger;
        this.peerAddress = peerAddress;
    }

    /** Two connected ends: [0] for the server (its peer is the client), [1] for the client. */
    static InProcessRendezvous[] pair(String serverAddress, String clientAddress) {
        Exchanger<Object> exchanger = new Exchanger<>();
        return new InProcessRendezvous[] {
            new InProcessRendezvous(exchanger, clientAddress), new InProcessRendezvous(exchanger, serverAddress)
        };
    }

    @Override
    public ConnectionData exchange(ConnectionData local, Duration timeout) throws BenchException {
        Object peer = swap(local, timeout, "the peer's connection data");
        if (!(peer instanceof ConnectionData data)) {
            throw new BenchException("the other side sent " + peer + " instead of its connection data");
        }
        return data;
    }

    @Override
    public void sync(String name, Duration timeout) throws BenchException {
        Object peer = swap(name, timeout, "'" + name + "'");
        if (!name.equals(peer)) {
            throw new BenchException("this side is at '" + name + "' but the other side is at '" + peer + "'");
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, String> swap(Map<String, String> local, Duration timeout) throws BenchException {
        Object peer = swap((Object) Map.copyOf(local), timeout, "the exchange of results");
        if (!(peer instanceof Map<?, ?> values)) {
            throw new BenchException("the other side sent " + peer + " instead of its results");
        }
        return (Map<String, String>) values;
    }

    private Object swap(Object value, Duration timeout, String what) throws BenchException {
        try {
            return exchanger.exchange(value, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchStopped();
        } catch (TimeoutException e) {
            throw new BenchException("the other side did not reach " + what + " within " + timeout.toSeconds()
                    + " s; it failed or is stuck (see its message)");
        }
    }

    @Override
    public String peerAddress() {
        return peerAddress;
    }

    @Override
    public String method() {
        return "in process";
    }

    @Override
    public void close() {
        // Nothing to release: a side waiting in an exchange is unblocked by interrupting its thread.
    }
}
