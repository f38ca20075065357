package org.rdmalab.app.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.rdmalab.app.LoopbackLab;
import org.rdmalab.app.lab.LabViewModel;
import org.rdmalab.app.lab.PacketRow;
import org.rdmalab.app.lab.TrafficViewModel;
import org.rdmalab.verbs.FaultControl;
import org.rdmalab.verbs.FaultKind;
import org.rdmalab.verbs.FaultSettings;
import org.rdmalab.verbs.OneShotFault;
import org.rdmalab.verbs.PacketEvent;
import org.rdmalab.verbs.WcOpcode;
import org.rdmalab.verbs.WcStatus;

/**
 * The Faults panel's view model on the loopback lab with real soft0 devices: a one-shot fault
 * armed before the seed's flow, rates changed while the devices run, and each fault that fired
 * logged with the packet it hit.
 */
class FaultsViewModelTest {

    @RegisterExtension
    final LoopbackLab loopback = new LoopbackLab();

    private LabViewModel lab;
    private FaultsViewModel faults;

    @BeforeEach
    void start() {
        lab = loopback.lab();
        faults = loopback.onUi(() -> new FaultsViewModel(lab, FaultSettings.NONE));
    }

    private static long count(List<PacketRow> rows, String side, PacketEvent.Direction direction, String opcode) {
        return rows.stream().filter(row -> row.side().equals(side) && row.packet().direction() == direction
                && row.packet().opcode().equals(opcode)).count();
    }

    @Test
    void droppingTheNextAckInTheSeedFlowSendsTheWriteTwiceAndItStillSucceeds() {
        OneShotFault shot = loopback.onUi(() -> {
            lab.apply(lab.defaultSetup().withGidIndex("3"));
            return faults.arm(OneShotFault.Kind.DROP_NEXT_ACK); // before the devices open
        });
        loopback.runToTheEnd();
        loopback.onUi(() -> {
            List<PacketRow> packets = List.copyOf(lab.packetLog().rows());
            assertEquals(2, count(packets, "client", PacketEvent.Direction.SENT, "RC_RDMA_WRITE_ONLY"),
                    "the WRITE went out twice: " + packets);
            List<PacketRow> writes = packets.stream().filter(row -> row.side().equals("client")
                    && row.packet().opcode().equals("RC_RDMA_WRITE_ONLY")).toList();
            assertEquals(writes.get(0).packet().psn(), writes.get(1).packet().psn(), "with the same PSN");
            PacketRow lost = packets.stream().filter(row -> row.packet().faulted()).findFirst().orElseThrow();
            assertEquals("server", lost.side());
            assertEquals(PacketEvent.Direction.DROPPED, lost.packet().direction());
            assertEquals("RC_ACKNOWLEDGE", lost.packet().opcode());
            assertEquals(1, packets.stream().filter(row -> row.packet().faulted()).count(), "once");
            assertTrue(lab.completions().stream().anyMatch(row -> row.side().equals("client")
                    && row.completion().opcode() == WcOpcode.RDMA_WRITE
                    && row.completion().status() == WcStatus.SUCCESS), lab.completions().toString());
            assertTrue(shot.fired());
            assertEquals(1, faults.log().rows().size());
            FaultsViewModel.FaultRow row = faults.log().rows().get(0);
            assertEquals(new PacketEvent.Fault(FaultKind.DROP, true, "the next ACK"), row.fault());
            assertEquals("server", row.side());
            assertEquals("Drop the next ACK (responder → requester): fired", FaultsView.describe(faults.shots().get(0)));
            return null;
        });
    }

    @Test
    void ratesSetWhileTheDevicesRunApplyToTheNextTrafficAndToDevicesOpenedLater() {
        loopback.run(() -> lab.apply(lab.defaultSetup().withGidIndex("3")));
        loopback.runToTheEnd();
        TrafficViewModel traffic = loopback.onUi(() -> new TrafficViewModel(lab, loopback.ui()));
        loopback.onUi(() -> {
            assertEquals(0, faults.log().rows().size(), "no faults in the seed's run");
            faults.duplicateProperty().set(1); // every packet twice, from now on
            assertEquals("dup=1,seed=1", faults.specProperty().get());
            for (String name : List.of("server", "client")) {
                FaultControl device = (FaultControl) loopback.side(name).session().resources().context().orElseThrow();
                assertEquals(FaultSettings.parse("dup=1"), device.faults(), name + "'s running device took them");
            }
            traffic.sideProperty().set(loopback.side("client"));
            traffic.opcodeProperty().set(org.rdmalab.verbs.WrOpcode.RDMA_WRITE);
            traffic.dataProperty().set("Again");
            traffic.post();
            return null;
        });
        loopback.await("the WRITE's completion and outcome", () -> lab.completions().stream()
                .filter(row -> row.side().equals("client") && row.completion().opcode() == WcOpcode.RDMA_WRITE).count() == 2
                && traffic.outcomeProperty().get().contains("IBV_WC_"));
        loopback.onUi(() -> {
            assertTrue(traffic.outcomeProperty().get().contains("IBV_WC_SUCCESS"), traffic.outcomeProperty().get());
            assertTrue(faults.log().rows().stream().anyMatch(row -> row.side().equals("client")
                    && row.fault().kind() == FaultKind.DUPLICATE && !row.fault().oneShot()
                    && row.packet().opcode().equals("RC_RDMA_WRITE_ONLY")), faults.log().rows().toString());
            faults.delayMillisProperty().set(2.5);
            faults.off();
            assertEquals("seed=1", faults.specProperty().get());
            faults.reorderProperty().set(0.25);
            faults.seedProperty().set(9);
            lab.resetAll();
            return null;
        });
        loopback.await("the reset", () -> lab.sides().stream().noneMatch(side -> side.busyProperty().get()
                || side.nextIndexProperty().get() != 0));
        loopback.runToTheEnd();
        loopback.onUi(() -> {
            FaultControl reopened = (FaultControl) loopback.side("client").session().resources().context().orElseThrow();
            assertEquals(FaultSettings.parse("reorder=0.25,seed=9"), reopened.faults(), "a device opened after a reset");
            return null;
        });
    }

    @Test
    void theWindowStartsWithTheCommandLinesFaultsAndRefusesValuesOutOfRange() {
        FaultsViewModel started = loopback.onUi(() -> new FaultsViewModel(lab, FaultSettings.parse("drop=0.05,delay=2ms,seed=7")));
        loopback.onUi(() -> {
            assertEquals(0.05, started.dropProperty().get());
            assertEquals(2.0, started.delayMillisProperty().get());
            assertEquals(7, started.seedProperty().get());
            assertEquals("drop=0.05,delay=2ms,seed=7", started.specProperty().get());
            started.corruptProperty().set(1.5);
            assertEquals("fault spec: corrupt 1.5 is outside 0..1", started.problemProperty().get());
            assertEquals("drop=0.05,delay=2ms,seed=7", started.specProperty().get(), "the devices keep what they had");
            started.corruptProperty().set(1);
            assertEquals("", started.problemProperty().get());
            assertEquals("drop=0.05,corrupt=1,delay=2ms,seed=7", started.specProperty().get());
            return null;
        });
    }
}
