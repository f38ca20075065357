package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Runs scenarios: opens a device per peer with that peer's options, builds and connects the
 * seed's resources, and after the scenario reports each device's counters and tears everything
 * down, whatever happened.
 */
public final class LoopbackLab {

    /**
     * The two connected peers.
     *
     * @param server the passive side
     * @param client the active side
     */
    public record Connection(Peer server, Peer client) {
    }

    private final Backends backends;
    private final LoopbackSettings settings;
    private final ScenarioListener listener;
    private final List<Peer> peers = new ArrayList<>();
    private boolean reportPackets;

    /** A lab that finds its devices in {@code backends} and reports to {@code listener}. */
    public LoopbackLab(Backends backends, LoopbackSettings settings, ScenarioListener listener) {
        this.backends = Objects.requireNonNull(backends, "backends");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** When on, every packet the devices see is reported (from the devices' threads). */
    public LoopbackLab reportPackets(boolean on) {
        reportPackets = on;
        return this;
    }

    /** The settings. */
    public LoopbackSettings settings() {
        return settings;
    }

    /** The seed's CQ poll timeout, or what the user chose. */
    public Duration pollTimeout() {
        return settings.pollTimeout();
    }

    /** Reports an explanation. */
    public void note(String text) {
        listener.onEvent(new ScenarioEvent.Note(text));
    }

    /** A fresh set of checks reporting to this lab's listener. */
    public Checks checks() {
        return new Checks(listener);
    }

    /**
     * Runs {@code scenario}; afterwards reports the counters of every device it opened and closes
     * them all. A verb failing where the scenario did not expect it ends the run "not as expected".
     */
    public ScenarioResult run(Scenario scenario) {
        try {
            return scenario.run(this);
        } catch (VerbsException e) {
            return ScenarioResult.unexpected("a verb failed where the scenario did not expect it",
                    List.of(e.getMessage()));
        } finally {
            for (Peer peer : peers) {
                peer.reportCounters();
            }
            closeAll();
        }
    }

    private void closeAll() {
        RuntimeException first = null;
        for (int i = peers.size() - 1; i >= 0; i--) {
            try {
                peers.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        peers.clear();
        if (first != null) {
            throw first;
        }
    }

    /**
     * Looks both devices up without opening them, so bad options (an unknown device, a fault spec
     * the device refuses) are reported before anything runs.
     *
     * @throws VerbsException ENODEV when the device does not exist
     * @throws IllegalArgumentException when the device refuses its options
     */
    public void findDevices() throws VerbsException {
        backends.find(settings.deviceName(PeerRole.SERVER), settings.server());
        backends.find(settings.deviceName(PeerRole.CLIENT), settings.client());
    }

    /** Opens the device for {@code role}, queries port 1 and picks the GID to send from. */
    public Peer open(PeerRole role) throws VerbsException {
        DeviceOptions options = role == PeerRole.SERVER ? settings.server() : settings.client();
        Peer peer = new Peer(role, listener);
        Device device;
        try {
            device = backends.find(settings.deviceName(role), options);
        } catch (VerbsException e) {
            listener.onEvent(new ScenarioEvent.VerbFailed(role, e.verb(), e.getMessage()));
            throw e;
        }
        peers.add(peer);
        peer.open(device, options.address());
        if (reportPackets) {
            peer.reportPackets();
        }
        return peer;
    }

    /**
     * The seed's setup on both peers: open, PD, MR, CQ, QP, exchange the connection data in
     * memory, then RESET → INIT → RTR → RTS on the server and on the client.
     */
    public Connection connect(PeerSetup serverSetup, PeerSetup clientSetup) throws VerbsException {
        Peer server = open(PeerRole.SERVER);
        Peer client = open(PeerRole.CLIENT);
        server.createResources(serverSetup);
        client.createResources(clientSetup);
        ConnectionData serverData = server.connectionData();
        ConnectionData clientData = client.connectionData();
        listener.onEvent(new ScenarioEvent.Step(PeerRole.SERVER, "exchange", "sends " + serverData));
        listener.onEvent(new ScenarioEvent.Step(PeerRole.CLIENT, "exchange", "sends " + clientData));
        server.toInit();
        server.toRtr(clientData, settings.pathMtu());
        server.toRts();
        client.toInit();
        client.toRtr(serverData, settings.pathMtu());
        client.toRts();
        return new Connection(server, client);
    }
}
