package org.rdmalab.cli;

import org.rdmalab.verbs.spi.DeviceOptions;
import picocli.CommandLine.Option;

/**
 * {@code --udp-port}: the RoCE v2 UDP port a software device binds, one declaration and one check
 * for {@code loopback}, {@code demo}, {@code doctor} and {@code bench}.
 */
final class UdpPortOption {

    @Option(names = "--udp-port", defaultValue = "" + DeviceOptions.ROCE_V2_PORT, paramLabel = "PORT",
            description = "RoCE v2 UDP port a software device binds (default ${DEFAULT-VALUE}).")
    private int port;

    /** The port given, 4791 by default; a usage error outside 1..65535. */
    int port() {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--udp-port " + port + " is outside 1..65535");
        }
        return port;
    }
}
