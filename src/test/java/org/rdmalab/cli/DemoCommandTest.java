package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The demo's usage errors: one line saying what is wrong, exit 2, nothing opened. */
class DemoCommandTest {

    @Test
    void aBadLocalAddressIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.300", "soft0");
        assertEquals(2, result.exitCode());
        assertEquals("rdma-lab: '127.0.0.300' is not an IPv4 address (each part is 0..255)\n", result.err());
    }

    @Test
    void aBadServerAddressIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.2", "soft0", "server.example");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("'server.example' is not an IPv4 address"), result.err());
    }

    @Test
    void anUnknownProtocolOrFlowListsTheValidOnes() {
        CliRunner.Result protocol = CliRunner.run("demo", "127.0.0.1", "soft0", "--protocol", "rdmacm");
        assertEquals(2, protocol.exitCode());
        assertTrue(protocol.err().contains("unknown protocol 'rdmacm'; valid protocols: seed, lab, pingpong"),
                protocol.err());
        CliRunner.Result flow = CliRunner.run("demo", "127.0.0.1", "soft0", "--flow", "read-only");
        assertEquals(2, flow.exitCode());
        assertTrue(flow.err().contains("unknown flow 'read-only'; valid flows: rc-example, write-only"), flow.err());
        assertFalse(flow.out().contains("Open device"), "nothing ran");
    }

    @Test
    void aMissingDeviceArgumentShowsTheUsage() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("Missing required parameter: '<device>'"), result.err());
        assertTrue(result.err().contains("Usage: rdma-lab demo"), result.err());
    }

    @Test
    void aBadMtuIsAUsageError() {
        CliRunner.Result result = CliRunner.run("demo", "127.0.0.1", "soft0", "--mtu", "1500");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("MTU 1500 is not one of 256, 512, 1024, 2048, 4096"), result.err());
    }
}
