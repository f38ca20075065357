package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** The verbs log: each call with its arguments, its result, and on failure its errno. */
class VerbLogTest {

    private static final int ACCESS = AccessFlag.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ,
            AccessFlag.REMOTE_WRITE);

    @Test
    void everyCallOfTheResourceStepsCarriesItsArguments() {
        ModifySteps.ToInit init = new ModifySteps.ToInit(1, ACCESS);
        List<Step> steps = List.of(new DeviceSteps.OpenDevice("soft0"), new DeviceSteps.QueryPort(1, "auto"),
                new ResourceSteps.AllocatePd(), new ResourceSteps.CreateCq(2),
                new ResourceSteps.RegisterMr(11, "", 0, ACCESS), new ResourceSteps.CreateQp(QpCapabilities.seed(), true),
                init);
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress("127.0.0.1"))
                .withUdpPort(Ports.freeUdpPort());
        List<LabEvent.VerbCall> calls = new ArrayList<>();
        try (LabSession session = new LabSession(Role.CLIENT, Backends.installed(), options,
                PeerLinks.memoryPair(Duration.ofSeconds(1))[0], steps)) {
            session.addListener(event -> {
                if (event instanceof LabEvent.VerbCall call) {
                    calls.add(call);
                }
            });
            for (int i = 0; i < 6; i++) {
                assertTrue(session.runNext().orElseThrow().ok());
            }
            // Drop PORT from the INIT mask: ibv_modify_qp refuses with EINVAL, and the log says so.
            init.parameter("flags").set("STATE,PKEY_INDEX,ACCESS_FLAGS");
            assertFalse(session.runNext().orElseThrow().ok());
            init.parameter("flags").set(init.parameter("flags").defaultValue());
            assertTrue(session.runNext().orElseThrow().ok());

            assertEquals(List.of("ibv_open_device", "ibv_query_port", "ibv_query_gid", "ibv_alloc_pd", "ibv_create_cq",
                    "ibv_reg_mr", "ibv_create_qp", "ibv_modify_qp", "ibv_modify_qp"),
                    calls.stream().map(LabEvent.VerbCall::verb).toList());
            MemoryRegion mr = session.resources().memoryRegion().orElseThrow();
            int pd = session.resources().protectionDomain().orElseThrow().handle();
            assertEquals(String.format("pd 0x%x, addr 0x%016x, length 11, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE"
                    + " | IBV_ACCESS_REMOTE_READ", pd, mr.address()), calls.get(5).arguments());
            assertEquals("ctx soft0, cqe 2, cq_context NULL, channel NULL, comp_vector 0", calls.get(4).arguments());
            assertTrue(calls.get(6).arguments().contains("qp_type IBV_QPT_RC, sq_sig_all 1, cap {max_send_wr 1"),
                    calls.get(6).arguments());

            LabEvent.VerbCall refused = calls.get(7);
            assertFalse(refused.ok());
            assertEquals(Errno.EINVAL, refused.errno());
            int qpn = session.resources().queuePair().orElseThrow().qpNum();
            assertTrue(refused.arguments().startsWith(String.format("qp 0x%x, {qp_state IBV_QPS_INIT, qp_access_flags"
                    + " IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, pkey_index 0},"
                    + " IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX", qpn)), refused.arguments());
            assertTrue(refused.result().contains("PORT"), refused.result());
            assertTrue(refused.line().contains(") = -1: ibv_modify_qp failed: EINVAL (22, Invalid argument)"),
                    refused.line());

            LabEvent.VerbCall done = calls.get(8);
            assertTrue(done.ok());
            assertNull(done.errno());
            assertTrue(done.arguments().contains("port_num 1}, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX"
                    + " | IBV_QP_PORT"), done.arguments());
            assertEquals("RESET → INIT", done.result());
        }
    }

    @Test
    void aFailureNeedsAnErrnoAndASuccessHasNone() {
        assertThrows(IllegalArgumentException.class, () -> new LabEvent.VerbCall("ibv_alloc_pd", "", "", false, null));
        assertThrows(IllegalArgumentException.class,
                () -> new LabEvent.VerbCall("ibv_alloc_pd", "", "", true, Errno.EINVAL));
        assertEquals(Errno.UNKNOWN, new LabEvent.VerbCall("ibv_alloc_pd", "failed", false).errno());
        assertEquals("ibv_alloc_pd(ctx soft0) = pd handle 1",
                LabEvent.VerbCall.ok("ibv_alloc_pd", "ctx soft0", "pd handle 1").line());
    }
}
