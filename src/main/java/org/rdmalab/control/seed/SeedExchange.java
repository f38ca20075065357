package org.rdmalab.control.seed;

import java.util.Objects;
import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.ControlChannel;
import org.rdmalab.control.ControlException;

/**
 * The seed's control exchange over one TCP connection, as its C program does it (the ancestor's
 * {@code sock_sync_data}): both sides write their 34-byte block in one write, then read the peer's;
 * later, a sync is one byte each way whose value nobody checks.
 *
 * <p>The ancestor syncs three times, sending 'Q' after RTS, 'R' after the SEND and 'W' after the
 * RDMA operations; a variant may skip one. To stay compatible with two or three rounds, use
 * {@link #finalSync} for the last one: it accepts a peer that already closed the connection.
 *
 * <p>Not thread-safe; the channel is owned by the caller, who closes it.
 */
public final class SeedExchange {

    /** The seed's TCP port (its ancestor used 19875). */
    public static final int PORT = 12025;

    /** Sync byte sent once both QPs are in RTS. */
    public static final byte SYNC_READY = 'Q';

    /** Sync byte sent after the SEND / RECV. */
    public static final byte SYNC_RECEIVED = 'R';

    /** Sync byte sent after the client's RDMA READ and WRITE. */
    public static final byte SYNC_WRITTEN = 'W';

    private static final String BLOCK = "the connection block";
    private static final String SYNC = "a sync byte";

    private final ControlChannel channel;

    /** An exchange over {@code channel}. */
    public SeedExchange(ControlChannel channel) {
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /** The channel underneath. */
    public ControlChannel channel() {
        return channel;
    }

    /** Sends {@code local} in one write, then reads exactly 34 bytes of the peer's block. */
    public SeedBlock exchange(SeedBlock local) throws ControlException {
        channel.write(local.serialize(), BLOCK);
        return SeedBlock.parse(channel.read(SeedBlock.LENGTH, BLOCK));
    }

    /**
     * Exchanges blocks built from and mapped back to the common form: sends address, rkey, QPN, LID
     * and GID; the result has PSN 0, length 11 and MTU 256 (see {@link SeedBlock#toConnectionData}).
     */
    public ConnectionData exchange(ConnectionData local) throws ControlException {
        return exchange(SeedBlock.from(local)).toConnectionData();
    }

    /** Sends one sync byte and waits for the peer's; returns the peer's byte (its value means nothing). */
    public byte sync(byte value) throws ControlException {
        channel.write(new byte[] {value}, SYNC);
        return channel.read(1, SYNC)[0];
    }

    /**
     * The last sync of a session: like {@link #sync}, but a peer that has already finished and
     * closed the connection (a peer that syncs one round less) gives an empty result, not an error.
     */
    public Optional<Byte> finalSync(byte value) throws ControlException {
        try {
            channel.write(new byte[] {value}, SYNC);
        } catch (ControlException e) {
            if (e.reason() == ControlException.Reason.PEER_CLOSED) {
                return Optional.empty();
            }
            throw e;
        }
        return channel.readIfOpen(1, SYNC).map(bytes -> bytes[0]);
    }
}
