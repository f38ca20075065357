package org.rdmalab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.StandInVerbs;

class DevicesCommandTest {

    @Test
    void listsTheSoftwareDeviceWithAnRxeLikeGidTable() {
        CliRunner.Result result = CliRunner.run("devices");
        assertEquals(0, result.exitCode(), result.err());
        String out = result.out();
        assertTrue(out.contains("hca_id: soft0"), out);
        assertTrue(out.contains("IBV_PORT_ACTIVE (4)"), out);
        assertTrue(out.contains("active_mtu:   1024"), out);
        assertTrue(out.contains("link_layer:   Ethernet"), out);
        assertTrue(out.matches("(?s).*GID\\[\\s+0\\]:\\s+fe80::7fff:fe00:1\\s+RoCE v1.*"), out);
        assertTrue(out.matches("(?s).*GID\\[\\s+3\\]:\\s+::ffff:127\\.0\\.0\\.1\\s+RoCE v2\\s+lo 127\\.0\\.0\\.1.*"), out);
    }

    @Test
    void jsonNamesEveryGidWithItsType() {
        CliRunner.Result result = CliRunner.run("devices", "--json", "--soft-address", "10.1.2.3");
        assertEquals(0, result.exitCode(), result.err());
        String out = result.out();
        assertTrue(out.contains("\"name\": \"soft0\""), out);
        assertTrue(out.contains("\"gid\": \"::ffff:10.1.2.3\""), out);
        assertTrue(out.contains("\"type\": \"RoCE v2\""), out);
        assertTrue(out.contains("\"index\": 3"), out);
    }

    @Test
    void badAddressIsAUsageError() {
        CliRunner.Result result = CliRunner.run("devices", "--soft-address", "10.1.2");
        assertEquals(2, result.exitCode());
        assertTrue(result.err().contains("'10.1.2' is not an IPv4 address"), result.err());
    }

    @Test
    void listsTheNativeDevicesWithTheirPortsAndGidsWhenPointedAtAStandIn(@TempDir Path dir) throws Exception {
        Path library = StandInVerbs.build(dir);
        String previous = System.getProperty("rdmalab.libibverbs");
        System.setProperty("rdmalab.libibverbs", library.toString());
        CliRunner.Result result;
        try {
            result = CliRunner.run("devices");
        } finally {
            if (previous == null) {
                System.clearProperty("rdmalab.libibverbs");
            } else {
                System.setProperty("rdmalab.libibverbs", previous);
            }
        }
        assertEquals(0, result.exitCode(), result.err());
        String out = result.out();
        int nativeSection = out.indexOf("backend libibverbs:");
        assertTrue(nativeSection >= 0, out);
        String listing = out.substring(nativeSection);
        assertTrue(listing.contains("hca_id: rxe0"), listing);
        assertTrue(listing.contains("hca_id: mlx5_0"), listing);
        assertTrue(listing.contains("node_guid:    0200:7fff:fe00:0001"), listing);
        assertTrue(listing.contains("IBV_PORT_ACTIVE (4)"), listing);
        assertTrue(listing.contains("IBV_PORT_DOWN (1)"), "mlx5_0's second port: " + listing);
        assertTrue(!listing.contains("failed"), listing);
        assertTrue(listing.matches("(?s).*GID\\[\\s+3\\]:\\s+::ffff:192\\.168\\.1\\.100\\s+RoCE v2.*"), listing);
        assertTrue(!listing.contains("GID[  2]"), "the empty slot 2 is not listed: " + listing);
    }
}
