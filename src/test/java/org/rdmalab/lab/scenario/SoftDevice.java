package org.rdmalab.lab.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Assumptions;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/** Test helpers for runs on the software device: free UDP ports, and a probe for a device with a transport. */
public final class SoftDevice {

    private SoftDevice() {
    }

    /** A UDP port free on both 127.0.0.1 and 127.0.0.2 right now, so parallel runs do not clash. */
    public static int freeUdpPort() {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramSocket first = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
                int port = first.getLocalPort();
                try (DatagramSocket second = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no UDP port free on both 127.0.0.1 and 127.0.0.2");
    }

    /** True when {@code port} can be bound again on both addresses (the devices released their sockets). */
    public static boolean portReleased(int port) {
        try (DatagramSocket first = new DatagramSocket(new InetSocketAddress("127.0.0.1", port));
             DatagramSocket second = new DatagramSocket(new InetSocketAddress("127.0.0.2", port))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Skips the calling test while soft0 cannot allocate a PD yet (its transport is still being
     * written: EOPNOTSUPP); any other answer lets the test run and report what the device does.
     */
    public static void assumeTransport() {
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(freeUdpPort());
        try (Context context = Backends.installed().find("soft0", options).open();
             ProtectionDomain pd = context.allocatePd()) {
            pd.handle();
        } catch (VerbsException e) {
            Assumptions.assumeTrue(e.errno() != Errno.EOPNOTSUPP, "soft0 has no transport yet: " + e.getMessage());
        }
    }
}
