package org.rdmalab.app.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.app.buffer.ByteSource;
import org.rdmalab.lab.SessionEvents;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.MemoryRegion;

/**
 * The buffers pane outside the window: what each pane shows and highlights as snapshots and reads
 * arrive, its caption in the loopback lab before and after the seed's flow and with two machines,
 * and one refresh for however many events asked for one before it ran. A single thread stands in
 * for JavaFX's.
 */
class BuffersViewModelTest {

    private static String ranges(BuffersViewModel.Pane pane) {
        return pane.changed().stream().map(r -> r[0] + "+" + r[1]).toList().toString();
    }

    // ---- one pane ------------------------------------------------------------------------------

    @Test
    void aSnapshotHighlightsWhatChangedSinceTheLastOneAndKeepsItWhileNothingChanges() {
        BuffersViewModel.Pane pane = new BuffersViewModel.Pane("server");
        pane.record(new byte[] {0, 0, 0, 0});
        assertEquals("[]", ranges(pane), "the first snapshot has nothing to compare with");
        pane.record(new byte[] {0, 7, 7, 0});
        assertEquals("[1+2]", ranges(pane));
        pane.record(new byte[] {0, 7, 7, 0});
        assertEquals("[1+2]", ranges(pane), "an unchanged snapshot keeps the last change highlighted");
        pane.record(new byte[] {9, 7, 7, 0});
        assertEquals("[0+1]", ranges(pane));
    }

    @Test
    void aReadTakesTheSourceCaptionAndBaseAndHighlightsWhatChanged() {
        BuffersViewModel.Pane pane = new BuffersViewModel.Pane("client");
        ByteSource first = ByteSource.of(new byte[] {1, 2, 3, 4});
        pane.update(first, "client buffer", 0x1000);
        assertEquals("client buffer", pane.caption());
        assertEquals(0x1000, pane.baseAddress());
        assertEquals(first, pane.source());
        assertEquals("client", pane.key());
        assertEquals("[]", ranges(pane));
        pane.update(ByteSource.of(new byte[] {1, 2, 5, 4}), "again", 0x2000);
        assertEquals("[2+1]", ranges(pane));
        assertEquals("again", pane.caption());
        assertEquals(0x2000, pane.baseAddress());
        pane.update(ByteSource.of(new byte[] {1, 2, 5, 4}), "same", 0x2000);
        assertEquals("[2+1]", ranges(pane), "the same bytes keep the last change highlighted");
        pane.update(ByteSource.of(new byte[0]), "gone", 0);
        assertEquals("[]", ranges(pane), "an empty buffer highlights nothing");
    }

    @Test
    void aSourceThatFailsToReadShowsNothingHighlighted() {
        BuffersViewModel.Pane pane = new BuffersViewModel.Pane("server");
        pane.update(ByteSource.of(new byte[] {1, 2}), "", 0);
        pane.update(ByteSource.of(new byte[] {1, 3}), "", 0);
        assertEquals("[1+1]", ranges(pane));
        ByteSource closed = new ByteSource() {
            @Override
            public long length() {
                return 2;
            }

            @Override
            public byte[] read(long offset, int length) {
                throw new IllegalStateException("memory region is closed");
            }
        };
        pane.update(closed, "closed", 0);
        assertEquals("[]", ranges(pane));
        pane.update(ByteSource.of(new byte[] {1, 3}), "", 0);
        assertEquals("[]", ranges(pane), "after an unreadable buffer the next read is a first read");
    }

    @Test
    void onlyTheFirstMebibyteIsComparedToFindWhatChanged() {
        int limit = BuffersViewModel.DIFF_LIMIT;
        assertEquals(1 << 20, limit);
        List<long[]> asked = new ArrayList<>();
        byte[] bytes = new byte[limit + 16];
        ByteSource big = new ByteSource() {
            @Override
            public long length() {
                return bytes.length;
            }

            @Override
            public byte[] read(long offset, int length) {
                asked.add(new long[] {offset, length});
                return java.util.Arrays.copyOfRange(bytes, (int) offset, (int) offset + length);
            }
        };
        BuffersViewModel.Pane pane = new BuffersViewModel.Pane("server");
        pane.update(big, "", 0);
        bytes[limit - 1] = 1;
        bytes[limit] = 1; // past what is compared
        pane.update(big, "", 0);
        assertEquals(List.of("0+" + limit, "0+" + limit), asked.stream().map(a -> a[0] + "+" + a[1]).toList());
        assertEquals("[" + (limit - 1) + "+1]", ranges(pane));
    }

    // ---- the panes of a lab --------------------------------------------------------------------

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    private LabViewModel lab;

    @BeforeEach
    void start() {
        lab = loopback.lab();
    }

    private void applySeed() {
        loopback.run(() -> lab.apply(lab.defaultSetup().withGidIndex("3")));
    }

    @Test
    void beforeAnyStepEachSidesPaneSaysItHasNoRegion() {
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, Runnable::run));
        applySeed();
        loopback.onUi(() -> {
            assertEquals(List.of("server", "client"), buffers.panes().stream().map(BuffersViewModel.Pane::key).toList());
            BuffersViewModel.Pane server = buffers.panes().get(0);
            assertEquals("server buffer · " + loopback.side("server").address() + " · no MR registered", server.caption());
            assertEquals(0, server.source().length());
            assertEquals(0, server.baseAddress());
            assertEquals("client buffer · " + loopback.side("client").address() + " · no MR registered",
                    buffers.panes().get(1).caption());
            int version = buffers.versionProperty().get();
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            assertTrue(buffers.versionProperty().get() > version, "new sides' panes are read at once");
            return null;
        });
    }

    @Test
    void afterTheSeedEachPaneShowsItsRegionWhereItIsAndWhoseRemoteBufferItIs() {
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, Runnable::run));
        applySeed();
        loopback.runToTheEnd();
        loopback.onUi(() -> {
            for (String name : List.of("server", "client")) {
                BuffersViewModel.Pane pane = buffers.panes().stream().filter(p -> p.key().equals(name)).findFirst()
                        .orElseThrow();
                MemoryRegion mr = loopback.side(name).session().resources().memoryRegion().orElseThrow();
                String role = name.equals("server") ? "the client's remote buffer" : "the server's remote buffer";
                String prefix = name + " buffer · " + loopback.side(name).address() + " · " + role + " · " + mr.length()
                        + " bytes at ";
                assertTrue(pane.caption().startsWith(prefix), pane.caption());
                assertTrue(pane.caption().substring(prefix.length()).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d"),
                        pane.caption());
                assertEquals(mr.address(), pane.baseAddress());
                assertEquals(mr.length(), pane.source().length());
                assertArrayEquals(mr.read(0, mr.length()), pane.source().read(0, mr.length()));
                // A read past the region's end is cut at the end.
                assertEquals(4, pane.source().read(mr.length() - 4, 64).length);
            }
            return null;
        });
    }

    @Test
    void eventsBeforeARefreshRanAskForOneRefreshOnly() {
        List<Runnable> queued = new ArrayList<>();
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, queued::add));
        applySeed();
        int before = loopback.onUi(() -> buffers.versionProperty().get());
        loopback.runToTheEnd();
        loopback.onUi(() -> {
            assertEquals(1, queued.size(), "however many events came, one refresh waits");
            assertEquals(before, buffers.versionProperty().get(), "nothing was read again before it ran");
            queued.remove(0).run();
            assertEquals(before + 1, buffers.versionProperty().get());
            assertTrue(buffers.panes().get(0).caption().contains("the client's remote buffer"),
                    buffers.panes().get(0).caption());
            return null;
        });
        loopback.run(() -> lab.resetAll());
        loopback.await("the reset to finish", () -> lab.sides().stream().noneMatch(s -> s.busyProperty().get()));
        loopback.run(() -> lab.runAllToEnd());
        loopback.await("the second run to finish", () -> lab.sides().stream().allMatch(side ->
                !side.busyProperty().get() && side.nextIndexProperty().get() == side.steps().size()));
        loopback.run(() -> assertEquals(1, queued.size(), "after a refresh ran, the next events ask again"));
    }

    @Test
    void withTwoMachinesTheRemotePaneWaitsForAReadOrASnapshot() {
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, Runnable::run));
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("auto").twoMachines(org.rdmalab.lab.Role.SERVER, "127.0.0.1",
                    "127.0.0.2", org.rdmalab.control.ControlProtocol.LAB, Ports.freeTcpPort()));
            assertEquals(List.of("local", "remote"), buffers.panes().stream().map(BuffersViewModel.Pane::key).toList());
            BuffersViewModel.Pane remote = buffers.panes().get(1);
            assertEquals("remote buffer · not seen yet: an RDMA READ (Traffic) or a snapshot (lab protocol) shows it",
                    remote.caption());
            assertEquals(0, remote.source().length());
            assertEquals(0, remote.baseAddress());
            assertEquals("local buffer · 127.0.0.1 · no MR registered", buffers.panes().get(0).caption());
            return null;
        });
    }

    /** Emits {@code event} on {@code side}'s session and waits until the lab has taken it. */
    private void emit(String side, org.rdmalab.lab.LabEvent event, java.util.function.BooleanSupplier taken) {
        loopback.run(() -> SessionEvents.emit(loopback.side(side).session(), event));
        loopback.await("the event to reach the lab", taken);
    }

    @Test
    void onlyEventsThatCanChangeABufferAskForARefresh() {
        List<Runnable> queued = new ArrayList<>();
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, queued::add));
        applySeed();
        java.util.concurrent.atomic.AtomicInteger verbs = new java.util.concurrent.atomic.AtomicInteger();
        loopback.run(() -> lab.afterEvent(event -> verbs.incrementAndGet()));
        emit("client", new org.rdmalab.lab.LabEvent.VerbCall("ibv_query_port", "port 1", "0", true, null),
                () -> verbs.get() == 1);
        loopback.run(() -> assertEquals(List.of(), queued, "a verb call changes no buffer"));
        List<org.rdmalab.lab.LabEvent> changing = List.of(
                new org.rdmalab.lab.LabEvent.BufferChanged(org.rdmalab.lab.LabEvent.Side.LOCAL, 0, 4, "received SEND"),
                new org.rdmalab.lab.LabEvent.Completion(new org.rdmalab.verbs.WorkCompletion(1,
                        org.rdmalab.verbs.WcStatus.SUCCESS, org.rdmalab.verbs.WcOpcode.RECV, 0, 4, 0, 1, 0, 0), 0,
                        java.time.Instant.now()),
                new org.rdmalab.lab.LabEvent.RemoteBuffer(new byte[] {1, 2}, 0, "RDMA READ", java.time.Instant.now()),
                new org.rdmalab.lab.LabEvent.StepFinished(loopback.onUi(() -> loopback.side("client").steps().get(0).step()),
                        org.rdmalab.lab.StepResult.ok("done")));
        for (org.rdmalab.lab.LabEvent event : changing) {
            int before = verbs.get();
            emit("client", event, () -> verbs.get() == before + 1);
            loopback.onUi(() -> {
                assertEquals(1, queued.size(), event.getClass().getSimpleName() + " asks for a refresh");
                int version = buffers.versionProperty().get();
                queued.remove(0).run();
                assertEquals(version + 1, buffers.versionProperty().get());
                return null;
            });
        }
    }

    @Test
    void withTwoMachinesTheRemotePaneShowsWhatARemoteBufferEventCarried() {
        BuffersViewModel buffers = loopback.onUi(() -> new BuffersViewModel(lab, Runnable::run));
        loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("auto").twoMachines(org.rdmalab.lab.Role.SERVER, "127.0.0.1",
                    "127.0.0.2", org.rdmalab.control.ControlProtocol.LAB, Ports.freeTcpPort()));
            return null;
        });
        java.time.Instant at = java.time.Instant.parse("2026-12-05T21:00:00.250Z");
        emit("local", new org.rdmalab.lab.LabEvent.RemoteBuffer(new byte[] {5, 6, 7}, 0x40, "RDMA READ", at),
                () -> !buffers.panes().get(1).caption().contains("not seen yet"));
        loopback.onUi(() -> {
            BuffersViewModel.Pane remote = buffers.panes().get(1);
            assertEquals("remote buffer · RDMA READ at " + LabViewModel.TIME.format(at), remote.caption());
            assertEquals(3, remote.source().length());
            assertArrayEquals(new byte[] {5, 6, 7}, remote.source().read(0, 3));
            assertEquals(0x40, remote.baseAddress(), "the offset from the peer's buffer address (unknown here: 0)");
            return null;
        });
    }
}
