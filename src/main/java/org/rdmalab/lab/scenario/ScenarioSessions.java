package org.rdmalab.lab.scenario;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.LabSession;
import org.rdmalab.lab.PeerLink;
import org.rdmalab.lab.PeerLinks;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.lab.StepResult;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * A scenario's two lab sessions, joined in memory: the server's on its device and address, the
 * client's on its own, each with the lab's steps for its {@link PeerSetup} (gid_idx auto: the GID
 * of the side's own address). {@link #runSteps()} runs them on the calling thread in the order
 * {@code loopback} prints (both open their device, both build their resources, the exchange, then
 * each side's transitions); the window instead gives each session to a side of the lab, whose own
 * controls run them, and they meet at the exchange. {@link #run()} is what the traffic works with.
 *
 * <p>Thread rules: the sessions'. {@link #runSteps()} and the traffic block up to their timeouts.
 */
public final class ScenarioSessions implements AutoCloseable {

    /** How long a side waits for the other at the exchange (the window's peers step by hand). */
    static final Duration PEER_TIMEOUT = Duration.ofSeconds(60);

    /** A step of a side failed where the scenario did not expect it. */
    public static final class StepFailed extends Exception {

        private static final long serialVersionUID = 1L;

        StepFailed(PeerRole role, Step step, StepResult result) {
            super(result.summary().isEmpty() ? "the " + role.label() + "'s step '" + step.title() + "' failed"
                    : result.summary());
        }
    }

    private final ScenarioSide server;
    private final ScenarioSide client;
    private final LoopbackSettings settings;
    private final ScenarioListener listener;

    private ScenarioSessions(ScenarioSide server, ScenarioSide client, LoopbackSettings settings,
                             ScenarioListener listener) {
        this.server = server;
        this.client = client;
        this.settings = settings;
        this.listener = listener;
    }

    /**
     * Builds the sessions of {@code scenario}'s plan; opens nothing yet (the first step opens the
     * device).
     *
     * @param packets whether the devices' packets are reported (each costs a decode)
     */
    public static ScenarioSessions of(Scenario scenario, Backends backends, LoopbackSettings settings,
                                      ScenarioListener listener, boolean packets) {
        return build(scenario, backends, settings, listener, packets, null);
    }

    /**
     * As {@link #of}, with the scenario's traffic and checks as the last step of its last side
     * (the client's, or the server's alone), "Post the traffic and check": the lab's own controls
     * then run the scenario from its first step to its checked outcome, which the step's result
     * says and {@code checked} receives (on the thread that ran the step) before the step ends.
     */
    public static ScenarioSessions withTrafficStep(Scenario scenario, Backends backends, LoopbackSettings settings,
                                                   ScenarioListener listener, boolean packets,
                                                   java.util.function.Consumer<ScenarioResult> checked) {
        return build(scenario, backends, settings, listener, packets, Objects.requireNonNull(checked));
    }

    private static ScenarioSessions build(Scenario scenario, Backends backends, LoopbackSettings settings,
                                          ScenarioListener listener, boolean packets,
                                          java.util.function.Consumer<ScenarioResult> checked) {
        Objects.requireNonNull(listener, "listener");
        Scenario.Plan plan = scenario.plan(settings);
        PeerLink[] links = PeerLinks.memoryPair(PEER_TIMEOUT);
        ScenarioSessions[] built = new ScenarioSessions[1];
        Step traffic = checked == null ? null : new TrafficStep(scenario, () -> built[0].run(),
                () -> built[0].sessions().subList(0, built[0].sessions().size() - 1), PEER_TIMEOUT, checked);
        ScenarioSide server = side(PeerRole.SERVER, plan.server(), links[0], backends, settings, listener, packets,
                plan.connects(), plan.connects() ? null : traffic);
        ScenarioSide client = plan.connects() ? side(PeerRole.CLIENT, plan.client(), links[1], backends, settings,
                listener, packets, true, traffic) : null;
        built[0] = new ScenarioSessions(server, client, settings, listener);
        return built[0];
    }

    private static ScenarioSide side(PeerRole role, PeerSetup setup, PeerLink link, Backends backends,
                                     LoopbackSettings settings, ScenarioListener listener, boolean packets,
                                     boolean connects, Step last) {
        Flows.Settings flow = new Flows.Settings(settings.deviceName(role), Flows.IB_PORT, "auto",
                setup.bufferLength(), settings.pathMtu(), settings.pollTimeout().toMillis());
        Role labRole = role == PeerRole.SERVER ? Role.SERVER : Role.CLIENT;
        List<Step> steps = new ArrayList<>(connects ? Flows.rcSide(labRole, flow, setup.side())
                : Flows.resources(flow, setup.side()));
        if (last != null) {
            steps.add(last);
        }
        DeviceOptions options = role == PeerRole.SERVER ? settings.server() : settings.client();
        LabSession session = new LabSession(labRole, backends, options, link, steps);
        session.packetEvents(packets);
        return new ScenarioSide(role, session, setup, listener);
    }

    /** The server's session, then the client's (when the scenario has one). */
    public List<LabSession> sessions() {
        List<LabSession> sessions = new ArrayList<>();
        sessions.add(server.session());
        if (client != null) {
            sessions.add(client.session());
        }
        return sessions;
    }

    /**
     * True when every step ran but the traffic step ({@link #withTrafficStep}), which runs next:
     * the scenario waits for its traffic.
     */
    public boolean trafficNext() {
        List<LabSession> all = sessions();
        LabSession last = all.get(all.size() - 1);
        return all.subList(0, all.size() - 1).stream().allMatch(LabSession::finished)
                && last.nextStep().map(step -> step instanceof TrafficStep).orElse(false);
    }

    /** True once every step of every side ran. */
    public boolean stepsDone() {
        return sessions().stream().allMatch(LabSession::finished);
    }

    /**
     * Runs every side's remaining steps on this thread: both open their device and query the
     * port, both build their resources, the server sends its connection data, the client
     * exchanges, then the server's transitions and the client's.
     *
     * @throws StepFailed at the first step that fails (the failed verb was reported)
     */
    public void runSteps() throws StepFailed {
        runUntil(server, "query-port");
        if (client == null) {
            runUntil(server, null);
            return;
        }
        runUntil(client, "query-port");
        runUntil(server, "connect");
        runUntil(client, "connect");
        runUntil(server, "send-data");
        runUntil(client, "exchange");
        runUntil(server, null);
        runUntil(client, null);
    }

    /** Runs {@code side}'s next steps up to and including the step {@code id} (null: to its end). */
    private static void runUntil(ScenarioSide side, String id) throws StepFailed {
        LabSession session = side.session();
        while (session.nextStep().isPresent()) {
            Step step = session.nextStep().get();
            StepResult result = session.runNext().orElseThrow();
            if (!result.ok()) {
                throw new StepFailed(side.role(), step, result);
            }
            if (step.id().equals(id)) {
                return;
            }
        }
    }

    /** What the traffic works with, reporting to this run's listener. */
    public ScenarioRun run() {
        return new ScenarioRun(server, client, settings, listener);
    }

    /** What the traffic works with, reporting to {@code other} (the window's gallery). */
    public ScenarioRun run(ScenarioListener other) {
        return new ScenarioRun(server, client, settings, other);
    }

    /** Reports each side's counters since its device opened (server, then client). */
    public void reportCounters() {
        server.reportCounters();
        if (client != null) {
            client.reportCounters();
        }
    }

    /** Releases both sessions, client first, reporting the teardown; idempotent. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (ScenarioSide side : client == null ? List.of(server) : List.of(client, server)) {
            try {
                side.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
