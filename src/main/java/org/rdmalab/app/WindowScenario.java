package org.rdmalab.app;

import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.rdmalab.app.bench.BenchForm;
import org.rdmalab.app.bench.BenchViewModel;
import org.rdmalab.app.common.UiText;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.SetupViewModel;
import org.rdmalab.app.lab.SideViewModel;
import org.rdmalab.app.lab.StepRow;
import org.rdmalab.control.ControlProtocol;
import org.rdmalab.lab.LabSetup;
import org.rdmalab.lab.Role;

/**
 * What {@code gui --scenario NAME} does in the window before the picture is taken: a few clicks'
 * worth of commands on the {@link LabViewModel}, and when the scenario has ended. Everything runs
 * on the JavaFX thread; the steps themselves run on the sides' workers.
 *
 * @param name the command-line name
 * @param description one line for the list of scenarios
 * @param start what to do once the window is up
 * @param ended true once the scenario has ended (every side idle, and what it waits for is there)
 * @param expectedFailure the id of the step the scenario makes fail on purpose, or null when no step
 *                        should fail
 */
public record WindowScenario(String name, String description, Consumer<LabViewModel> start,
                             Predicate<LabViewModel> ended, String expectedFailure,
                             java.util.function.Function<LabViewModel, java.util.Optional<String>> verdict) {

    /** A scenario in which no step should fail. */
    public WindowScenario(String name, String description, Consumer<LabViewModel> start,
                          Predicate<LabViewModel> ended) {
        this(name, description, start, ended, null);
    }

    /** A scenario judged by its steps alone: none but {@code expectedFailure} may fail. */
    public WindowScenario(String name, String description, Consumer<LabViewModel> start,
                          Predicate<LabViewModel> ended, String expectedFailure) {
        this(name, description, start, ended, expectedFailure, lab -> java.util.Optional.empty());
    }

    /**
     * What went wrong on the way, if anything: the first step that failed on a side other than the
     * one this scenario makes fail on purpose, as "the server's step 6. Create QP failed: …".
     */
    public java.util.Optional<String> failure(LabViewModel lab) {
        java.util.Optional<String> judged = verdict.apply(lab);
        if (judged.isPresent()) {
            return judged;
        }
        for (SideViewModel side : lab.sides()) {
            int failed = side.failedIndex();
            if (failed >= 0 && failed < side.steps().size()) {
                StepRow row = side.steps().get(failed);
                if (!row.step().id().equals(expectedFailure)) {
                    return java.util.Optional.of("the " + side.name() + "'s step " + (failed + 1) + ". "
                            + row.step().title() + " failed: " + row.summaryProperty().get());
                }
            }
        }
        return java.util.Optional.empty();
    }

    /** The scenarios, in the order the usage lists them: the window's own, then the gallery's. */
    public static List<WindowScenario> all() {
        List<WindowScenario> all = new java.util.ArrayList<>(own());
        for (org.rdmalab.lab.scenario.Scenario lesson : org.rdmalab.lab.scenario.Scenarios.all()) {
            if (all.stream().noneMatch(scenario -> scenario.name().equals(lesson.name()))) {
                all.add(gallery(lesson.name()));
            }
        }
        return List.copyOf(all);
    }

    /**
     * The gallery's scenario {@code name} in the Lessons tab, run to its end (its steps in the lab's
     * columns, then its traffic); it failed when its checked outcome is not the expected one.
     */
    private static WindowScenario gallery(String name) {
        return new WindowScenario(name, "the Lessons tab's gallery: " + org.rdmalab.lab.scenario.ScenarioTexts
                .english().line(name) + ", run to its end with its outcome checked", lab -> {
                    selectInspectorTab("scenariosTab");
                    scenarios().ifPresent(gallery -> {
                        gallery.entries().stream().filter(entry -> entry.name().equals(name)).findFirst()
                                .ifPresent(gallery.selectedProperty()::set);
                        gallery.runToEnd();
                    });
                }, lab -> scenarios().map(gallery -> {
                    var phase = gallery.phaseProperty().get();
                    return phase == org.rdmalab.app.lessons.ScenariosViewModel.Phase.CHECKED
                            || phase == org.rdmalab.app.lessons.ScenariosViewModel.Phase.STOPPED;
                }).orElse(false), null, lab -> scenarios().filter(gallery -> {
                    var phase = gallery.phaseProperty().get();
                    return phase == org.rdmalab.app.lessons.ScenariosViewModel.Phase.STOPPED
                            || phase == org.rdmalab.app.lessons.ScenariosViewModel.Phase.CHECKED
                            && !gallery.asExpectedProperty().get();
                }).map(gallery -> gallery.outcomeProperty().get() + (gallery.problems().isEmpty() ? ""
                        : " (" + String.join("; ", gallery.problems()) + ")")));
    }

    /**
     * Selects in the Ladder tab's work requests the client's request {@code wrId} once its packets
     * are on the ladder; false while they are not.
     */
    private static boolean selectRequest(long wrId) {
        var requests = inspector().map(pane -> pane.lookup("#requestTable")).map(node -> node.getProperties()
                .get(org.rdmalab.app.ladder.WorkRequestsViewModel.class))
                .filter(org.rdmalab.app.ladder.WorkRequestsViewModel.class::isInstance)
                .map(org.rdmalab.app.ladder.WorkRequestsViewModel.class::cast);
        if (requests.isEmpty()) {
            return true; // another view shown: nothing to select
        }
        var request = requests.get().requests().stream().filter(each -> each.wrId() == wrId
                && "client".equals(each.side()) && each.state() == org.rdmalab.ladder.WorkRequest.State.COMPLETED
                && each.packets().length > 0).findFirst();
        request.ifPresent(requests.get()::select);
        return request.isPresent();
    }

    /** The shown window's scenario gallery. */
    private static java.util.Optional<org.rdmalab.app.lessons.ScenariosViewModel> scenarios() {
        return viewModel("scenarios-view", org.rdmalab.app.lessons.ScenariosViewModel.class);
    }

    /**
     * The view model of type {@code type} that the shown window's view with style class
     * {@code styleClass} holds in its properties. The view may sit in a tab held back or a pane not
     * skinned yet, which {@code Node.lookup} sees into only after the next pulse
     * ({@link LazyTabContent#find}): a scenario can use a view model as soon as it picked its tab.
     */
    private static <T> java.util.Optional<T> viewModel(String styleClass, Class<T> type) {
        return inspector().flatMap(pane -> LazyTabContent.find(pane, styleClass)).map(node -> node.getProperties()
                .get(type)).filter(type::isInstance).map(type::cast);
    }

    /** The window's own scenarios: its flows, tabs and faults. */
    private static List<WindowScenario> own() {
        return List.of(
                new WindowScenario("seed", "the loopback lab with the recommended GID, run to the end: both QPs in RTS,"
                        + " the completions and HelloWorld in the server's buffer", lab -> {
                            lab.setup().useRecommendedGid();
                            lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
                            lab.runAllToEnd();
                            lab.selectedSideProperty().set(lab.sides().get(0));
                            lab.selectedStepProperty().set(lab.sides().get(0).steps().get(
                                    lab.sides().get(0).steps().size() - 1));
                        }, WindowScenario::idleAndRan),
                new WindowScenario("rtr-no-grh", "the loopback lab with the seed's gid_idx -1: RTR fails on RoCE and"
                        + " the reason shows at the gid_idx field", lab -> {
                            lab.runAllToEnd();
                        }, lab -> {
                            boolean failed = idleAndRan(lab) && lab.sides().stream().anyMatch(side -> side.failedIndex() >= 0);
                            if (failed) {
                                // Show the field the failure blames, with its explanation and the fix.
                                SideViewModel client = lab.sides().get(lab.sides().size() - 1);
                                lab.selectedSideProperty().set(client);
                                client.steps().stream().filter(row -> row.step().id().equals("query-port")).findFirst()
                                        .ifPresent(lab.selectedStepProperty()::set);
                            }
                            return failed;
                        }, "modify-rtr"),
                new WindowScenario("two-machines", "the setup for one peer of two machines: this side is the client"
                        + " on 127.0.0.2, the server at 127.0.0.1 speaks the lab protocol", lab -> {
                            SetupViewModel setup = lab.setup();
                            setup.modeProperty().set(LabSetup.Mode.TWO_MACHINES);
                            setup.roleProperty().set(Role.CLIENT);
                            setup.localIpProperty().set(LabSetup.LOOPBACK_CLIENT_IP);
                            setup.peerIpProperty().set(LabSetup.LOOPBACK_SERVER_IP);
                            setup.protocolProperty().set(ControlProtocol.LAB);
                            setup.useRecommendedGid();
                            lab.apply();
                        }, lab -> true),
                new WindowScenario("doctor", "the Doctor tab on the loopback lab as it opens: soft0's checks for both"
                        + " addresses, and the seed's gid_idx -1 caught with its one-click fix",
                        lab -> selectInspectorTab("doctorTab"),
                        lab -> inspectorShows("#doctorSummary", UiText.pattern("doctor.summary") + ".*")),
                new WindowScenario("bench", "the Bench tab, wide: ib_write_lat with 8-byte messages for 3 s on soft0 in loopback"
                        + " and the UDP baseline, latency over time, t_typical and the CDF with its percentiles",
                        lab -> benchLatency(true), WindowScenario::benchDone),
                new WindowScenario("bench-server", "the Bench tab at the window's default size as the server of a run"
                        + " over TCP: ib_write_bw, MTU 1024, TX depth 64, waiting on port 18515 for a client (another"
                        + " window or bench ... 127.0.0.1)",
                        lab -> {
                            selectInspectorTab("benchTab");
                            bench().ifPresent(bench -> {
                                bench.form().roleProperty().set(BenchForm.Role.SERVER);
                                bench.form().modeProperty().set(org.rdmalab.bench.BenchMode.BW);
                                bench.form().mtuProperty().set(1024);
                                bench.form().txDepthProperty().set(64);
                                bench.form().reportGbitsProperty().set(true);
                                bench.start();
                            });
                        }, lab -> bench().map(bench -> !bench.runningProperty().get()
                                || bench.statusProperty().get().contains("waiting for a client")).orElse(false)),
                new WindowScenario("bench-narrow", "the bench scenario with Wide released: the tab between the lab's"
                        + " columns at the window's default size, its buttons, latency over time and the two rows",
                        lab -> benchLatency(false), WindowScenario::benchDone),
                dropAck(),
                badRkey(),
                bulk(BULK_BYTES),
                new WindowScenario("packet", "the seed's flow, then Wire › Packets with the client's RDMA WRITE"
                        + " opened: its headers and fields beside its bytes, the RETH's remote key selected (the"
                        + " client's rkey of the server's buffer) and the ICRC computed and matching", lab -> {
                            selectInspectorTab("packetsTab");
                            lab.setup().useRecommendedGid();
                            lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
                            lab.runAllToEnd();
                        }, lab -> idleAndRan(lab) && openThe(lab, "client", "RC_RDMA_WRITE_ONLY",
                                org.rdmalab.wire.Dissection.Layer.RETH, "Remote Key")));
    }

    /**
     * The seed's flow with Drop the next ACK armed in the Faults tab before the devices open. It
     * did not run as it should when the one-shot fault never fired on the server's ACK, or the
     * client's WRITE did not complete with IBV_WC_SUCCESS after its retransmission.
     */
    static WindowScenario dropAck() {
        return new WindowScenario("drop-ack", "the seed's flow with Drop the next ACK armed in the Faults tab: the"
                + " server's ACK is lost, the client's WRITE goes out again with the same PSN and still completes"
                + " with IBV_WC_SUCCESS; the tab shows the one-shot fault fired and the ACK it dropped", lab -> {
                    selectInspectorTab("faultsTab");
                    faults().ifPresent(faults -> faults.arm(org.rdmalab.verbs.OneShotFault.Kind.DROP_NEXT_ACK));
                    lab.setup().useRecommendedGid();
                    lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
                    lab.runAllToEnd();
                }, WindowScenario::idleAndRan, null, lab -> {
                    if (!idleAndRan(lab)) {
                        return java.util.Optional.empty();
                    }
                    boolean ackDropped = faults().map(faults -> faults.log().rows().stream().anyMatch(row -> row.fault()
                            .oneShot() && row.packet().opcode().endsWith("ACKNOWLEDGE"))).orElse(false);
                    if (!ackDropped) {
                        return java.util.Optional.of("the one-shot fault Drop the next ACK never fired");
                    }
                    var write = lab.completions().stream().filter(row -> row.completion().opcode()
                            == org.rdmalab.verbs.WcOpcode.RDMA_WRITE).findFirst();
                    if (write.isEmpty() || write.get().completion().status() != org.rdmalab.verbs.WcStatus.SUCCESS) {
                        return java.util.Optional.of("the client's RDMA WRITE did not complete with IBV_WC_SUCCESS after"
                                + " its ACK was dropped: " + write.map(row -> row.completion().status().cName())
                                .orElse("no completion"));
                    }
                    return java.util.Optional.empty();
                });
    }

    /** Bytes the bulk scenario moves each way (gui --scenario bulk). */
    public static final int BULK_BYTES = 256 * 1024;

    /**
     * The seed's flow, then the client RDMA-WRITEs with an rkey the server never gave out: the
     * server's NAK (remote access error) and the client's IBV_WC_REM_ACCESS_ERR, with the Ladder
     * tab shown.
     */
    static WindowScenario badRkey() {
        boolean[] done = new boolean[1];
        return new WindowScenario("bad-rkey", "the seed's flow, then a WRITE with an rkey the server never gave out:"
                + " the server NAKs it (remote access error) and the client's completion is IBV_WC_REM_ACCESS_ERR;"
                + " the Ladder tab shows the NAK", lab -> {
                    selectInspectorTab("ladderTab");
                    lab.setup().useRecommendedGid();
                    lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
                    lab.runAllToEnd();
                }, lab -> {
                    if (!idleAndRan(lab) || lab.sides().stream().anyMatch(side -> side.failedIndex() >= 0)) {
                        return idleAndRan(lab);
                    }
                    if (!done[0]) {
                        done[0] = true;
                        postBadRkeyWrite(lab, started -> { });
                        return false;
                    }
                    return lab.completions().stream().anyMatch(row -> row.completion().status()
                            == org.rdmalab.verbs.WcStatus.REM_ACCESS_ERR);
                });
    }

    /**
     * The client posts an 11-byte RDMA WRITE (wr_id 7) to the server's buffer with the server's
     * rkey plus 0x100 (an rkey it never gave out) and polls for its completion; {@code done} gets
     * the outcome line. For the bad-rkey scenario and its tests.
     */
    public static void postBadRkeyWrite(LabViewModel lab, Consumer<String> done) {
        SideViewModel client = lab.sides().get(lab.sides().size() - 1);
        client.perform("bad rkey", session -> {
            var resources = session.resources();
            var mr = resources.memoryRegion().orElseThrow();
            var remote = resources.remoteData().orElseThrow();
            var wr = new org.rdmalab.verbs.SendWorkRequest(7, List.of(mr.sge(0, 11)),
                    org.rdmalab.verbs.WrOpcode.RDMA_WRITE, org.rdmalab.verbs.SendFlag.SIGNALED.value(), 0, remote.addr(),
                    remote.rkey() + 0x100, 0, 0);
            try {
                session.traffic().postSend(List.of(wr));
                var polled = session.traffic().pollCompletions(java.time.Duration.ofSeconds(10), 4);
                return polled.isEmpty() ? "no completion" : polled.get(0).status().cName();
            } catch (org.rdmalab.verbs.VerbsException e) {
                return e.getMessage();
            }
        }, done);
    }

    /**
     * The seed's flow with both buffers {@code bytes} long and path MTU 1024, then the client
     * RDMA-WRITEs them all to the server and READs them back (with gui --fault drop=0.05 the
     * retransmissions show on the ladder).
     */
    public static WindowScenario bulk(int bytes) {
        return bulk(bytes, null);
    }

    /**
     * As {@link #bulk(int)}, with the local ACK timeout {@code rtsTimeout} ("0xc") in both sides'
     * RTS step instead of the seed's 0x12 (1.07 s, which every lost READ response costs); null keeps it.
     */
    public static WindowScenario bulk(int bytes, String rtsTimeout) {
        boolean[] posted = new boolean[1];
        boolean[] finished = new boolean[1];
        return new WindowScenario("bulk", "the seed's flow with " + bytes / 1024 + " KiB buffers and path MTU 1024,"
                + " then an RDMA WRITE and an RDMA READ of them all; with --fault drop=0.05 the Ladder tab shows"
                + " the retransmissions, the WRITE selected with its packets lit", lab -> {
                    selectInspectorTab("ladderTab");
                    lab.setup().useRecommendedGid();
                    lab.apply(lab.defaultSetup().withGidIndex(lab.setup().gidIndexProperty().get()));
                    bulkSteps(lab, bytes, rtsTimeout);
                    lab.runAllToEnd();
                }, lab -> {
                    if (!idleAndRan(lab) || lab.sides().stream().anyMatch(side -> side.failedIndex() >= 0)) {
                        return idleAndRan(lab);
                    }
                    if (!posted[0]) {
                        posted[0] = true;
                        writeAndReadBack(lab, bytes, outcome -> finished[0] = true);
                        return false;
                    }
                    // The picture shows the tie: the WRITE (wr_id 1) selected, its packets lit on the ladder.
                    return finished[0] && selectRequest(1);
                });
    }

    /**
     * Sets both sides' steps for a bulk transfer: {@code bytes}-byte buffers, path MTU 1024, and
     * the local ACK timeout {@code rtsTimeout} in the RTS step (null keeps the seed's).
     */
    public static void bulkSteps(LabViewModel lab, int bytes, String rtsTimeout) {
        for (SideViewModel side : lab.sides()) {
            for (StepRow row : side.steps()) {
                if (row.step().id().equals("reg-mr")) {
                    row.step().parameter("size").set(Integer.toString(bytes));
                }
                if (row.step().id().equals("modify-rtr")) {
                    row.step().parameter("path_mtu").set("1024");
                }
                if (rtsTimeout != null && row.step().id().equals("modify-rts")) {
                    row.step().parameter("timeout").set(rtsTimeout);
                }
            }
        }
    }

    /** The client WRITEs {@code bytes} to the server (wr_id 1), then READs them back (wr_id 2). */
    public static void writeAndReadBack(LabViewModel lab, int bytes, Consumer<String> done) {
        SideViewModel client = lab.sides().get(lab.sides().size() - 1);
        client.perform("bulk", session -> {
            StringBuilder said = new StringBuilder();
            for (org.rdmalab.verbs.WrOpcode opcode : List.of(org.rdmalab.verbs.WrOpcode.RDMA_WRITE,
                    org.rdmalab.verbs.WrOpcode.RDMA_READ)) {
                var posted = session.traffic().postSend(org.rdmalab.lab.TrafficRequest.of(opcode,
                        opcode == org.rdmalab.verbs.WrOpcode.RDMA_WRITE ? 1 : 2, 0, bytes, 0));
                if (!posted.ok()) {
                    return UiText.say(posted.said());
                }
                try {
                    var polled = session.traffic().pollCompletions(java.time.Duration.ofMinutes(5), 1);
                    said.append(polled.isEmpty() ? "no completion" : polled.get(0).status().cName()).append(' ');
                } catch (org.rdmalab.verbs.VerbsException e) {
                    return e.getMessage();
                }
            }
            return said.toString().trim();
        }, done);
    }

    /**
     * Selects in the Packets table the first packet {@code side} sent with {@code opcode}, and in
     * the packet opened the field {@code field} of its header {@code layer}; false while there is
     * no such packet yet.
     */
    private static boolean openThe(LabViewModel lab, String side, String opcode,
                                   org.rdmalab.wire.Dissection.Layer layer, String field) {
        var table = inspector().map(pane -> pane.lookup("#packetTable"))
                .filter(javafx.scene.control.TableView.class::isInstance)
                .map(node -> (javafx.scene.control.TableView<?>) node);
        var opened = viewModel("packet-view", org.rdmalab.app.packets.PacketViewModel.class);
        if (table.isEmpty() || opened.isEmpty()) {
            return false;
        }
        for (Object item : table.get().getItems()) {
            org.rdmalab.app.lab.PacketRow row = (org.rdmalab.app.lab.PacketRow) item;
            if (row.side().equals(side) && row.packet().opcode().equals(opcode)
                    && row.packet().direction() == org.rdmalab.verbs.PacketEvent.Direction.SENT) {
                table.get().getSelectionModel().select(table.get().getItems().indexOf(item));
                var dissection = opened.get().dissectionProperty().get();
                if (dissection == null) {
                    return false;
                }
                dissection.field(layer, field).ifPresent(opened.get().selectedProperty()::set);
                return true;
            }
        }
        return false;
    }

    /** The bench scenarios' run: ib_write_lat, 8 B, with the baseline, for a time per path; {@code wide} the Wide button. */
    private static void benchLatency(boolean wide) {
        selectInspectorTab("benchTab");
        bench().ifPresent(bench -> {
            bench.wideProperty().set(wide);
            bench.form().testProperty().set(org.rdmalab.bench.BenchTest.WRITE);
            bench.form().modeProperty().set(org.rdmalab.bench.BenchMode.LAT);
            bench.form().sizeProperty().set(8);
            bench.form().baselineProperty().set(true);
            // Each path runs for a time, not a count: a few live samples on any machine.
            bench.form().limitProperty().set(BenchForm.Limit.SECONDS);
            bench.form().secondsProperty().set(BENCH_SECONDS);
            bench.start();
        });
    }

    /** True once the bench run has ended with a report. */
    private static boolean benchDone(LabViewModel lab) {
        return bench().map(bench -> !bench.runningProperty().get() && bench.reportProperty().get() != null)
                .orElse(false);
    }

    /** Seconds the bench scenario measures each path (bench -D). */
    static final int BENCH_SECONDS = 3;

    /** The shown window's Bench view model. */
    private static java.util.Optional<BenchViewModel> bench() {
        return viewModel("bench-view", BenchViewModel.class);
    }

    /** The shown window's Faults view model (its form sits in a scroll pane of the Wire tab). */
    private static java.util.Optional<org.rdmalab.app.faults.FaultsViewModel> faults() {
        return viewModel("faults-view", org.rdmalab.app.faults.FaultsViewModel.class);
    }

    /** The shown window's inspector tabs (the Doctor scenario clicks one, as a user would). */
    private static java.util.Optional<javafx.scene.control.TabPane> inspector() {
        return javafx.stage.Window.getWindows().stream().filter(javafx.stage.Window::isShowing)
                .map(javafx.stage.Window::getScene).filter(java.util.Objects::nonNull)
                .map(scene -> scene.lookup(".inspector")).filter(javafx.scene.control.TabPane.class::isInstance)
                .map(javafx.scene.control.TabPane.class::cast).findFirst();
    }

    private static void selectInspectorTab(String id) {
        inspector().ifPresent(pane -> select(pane, id));
    }

    /**
     * Selects the tab {@code id} of {@code pane} or of a tab pane inside one of its tabs (the Wire
     * tab's Packets and Faults), and the tab that holds it; false when there is none.
     */
    private static boolean select(javafx.scene.control.TabPane pane, String id) {
        for (javafx.scene.control.Tab tab : pane.getTabs()) {
            // A tab not opened yet holds its content back (LazyTabContent): look inside it all the same.
            if (id.equals(tab.getId()) || LazyTabContent.heldOrShown(tab) instanceof javafx.scene.control.TabPane inner
                    && select(inner, id)) {
                // Its views are built now (DeferredView), not at the next pulse, for the scenario to read them.
                LazyTabContent.contentOf(tab);
                pane.getSelectionModel().select(tab);
                return true;
            }
        }
        return false;
    }

    /**
     * The views {@code gui --view} shows, by name, with the id of the tab that holds each: the step
     * pane's tabs and the Wire tab's own (ladder, packets, counters, faults).
     */
    public static final java.util.Map<String, String> VIEWS = java.util.Collections.unmodifiableMap(
            new java.util.LinkedHashMap<>(java.util.Map.ofEntries(
                    java.util.Map.entry("ladder", "ladderTab"), java.util.Map.entry("packets", "packetsTab"),
                    java.util.Map.entry("counters", "countersTab"), java.util.Map.entry("faults", "faultsTab"), java.util.Map.entry("step", "stepTab"),
                    java.util.Map.entry("traffic", "trafficTab"), java.util.Map.entry("connection-data", "connectionTab"),
                    java.util.Map.entry("resources", "resourcesTab"), java.util.Map.entry("verbs", "verbsTab"),
                    java.util.Map.entry("doctor", "doctorTab"), java.util.Map.entry("bench", "benchTab"))));

    /** The names of {@link #VIEWS} in the order the usage lists them. */
    public static final List<String> VIEW_NAMES = List.of("ladder", "packets", "counters", "faults", "step", "traffic",
            "connection-data", "resources", "verbs", "doctor", "bench");

    /**
     * The tab id of view {@code name}.
     *
     * @throws IllegalArgumentException listing the valid names
     */
    public static String viewTab(String name) {
        String tab = VIEWS.get(name.trim().toLowerCase(Locale.ROOT));
        if (tab == null) {
            throw new IllegalArgumentException("unknown view '" + name + "' for --view; valid views: "
                    + String.join(", ", VIEW_NAMES));
        }
        return tab;
    }

    /** Shows view {@code name} in the shown window (selects its tab and the tab that holds it). */
    public static void showView(String name) {
        selectInspectorTab(viewTab(name));
    }

    /** True when the label {@code selector} in the inspector shows text matching {@code pattern}. */
    private static boolean inspectorShows(String selector, String pattern) {
        return inspector().map(pane -> pane.lookup(selector)).filter(javafx.scene.control.Label.class::isInstance)
                .map(node -> ((javafx.scene.control.Label) node).getText()).filter(text -> text != null
                        && text.matches(pattern)).isPresent();
    }

    /**
     * The scenario called {@code name}.
     *
     * @throws IllegalArgumentException listing the valid names
     */
    public static WindowScenario named(String name) {
        for (WindowScenario scenario : all()) {
            if (scenario.name().equals(name.trim().toLowerCase(Locale.ROOT))) {
                return scenario;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + name + "'; valid scenarios: "
                + String.join(", ", all().stream().map(WindowScenario::name).toList()));
    }

    /** True when no side is busy and at least one step ran. */
    static boolean idleAndRan(LabViewModel lab) {
        return !lab.sides().isEmpty()
                && lab.sides().stream().noneMatch(side -> side.busyProperty().get())
                && lab.sides().stream().anyMatch(side -> side.steps().stream()
                        .anyMatch(row -> row.statusProperty().get() != StepRow.Status.PENDING));
    }
}
