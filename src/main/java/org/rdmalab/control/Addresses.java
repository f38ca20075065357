package org.rdmalab.control;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** Turns the IP arguments users type into socket addresses, with one-line errors. */
final class Addresses {

    private static final Pattern DOTTED = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern NUMERIC_LOOKING = Pattern.compile("[0-9.]+");

    private Addresses() {
    }

    /**
     * Parses an IPv4 or IPv6 literal, or resolves a host name (as the C programs' getaddrinfo
     * does). Text made of digits and dots is never sent to a name server.
     */
    static InetAddress parse(String text, String role) throws ControlException {
        if (text == null || text.isBlank()) {
            throw new ControlException(ControlException.Reason.BAD_ADDRESS, "no " + role + " IP address was given");
        }
        String trimmed = text.trim();
        if (NUMERIC_LOOKING.matcher(trimmed).matches()) {
            if (!DOTTED.matcher(trimmed).matches() || !octetsInRange(trimmed)) {
                throw bad(trimmed, role);
            }
        }
        try {
            return InetAddress.getByName(trimmed);
        } catch (UnknownHostException | SecurityException e) {
            throw new ControlException(ControlException.Reason.BAD_ADDRESS,
                    "'" + trimmed + "' is not an IP address or a known host name; give the " + role
                            + " IP as in 192.168.1.100", e);
        }
    }

    private static boolean octetsInRange(String dotted) {
        for (String part : dotted.split("\\.")) {
            if (Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    private static ControlException bad(String text, String role) {
        return new ControlException(ControlException.Reason.BAD_ADDRESS,
                "'" + text + "' is not a valid IPv4 address; give the " + role + " IP as in 192.168.1.100");
    }

    /** Ports 1..65535; 0 too when {@code anyAllowed} (a listener then gets a free port). */
    static void checkPort(int port, boolean anyAllowed) throws ControlException {
        if (port < (anyAllowed ? 0 : 1) || port > 65535) {
            throw new ControlException(ControlException.Reason.BAD_ADDRESS,
                    "TCP port " + port + " is out of range; choose a --tcp-port between 1 and 65535");
        }
    }

    /** {@code 127.0.0.1:12025} or {@code [fe80::1]:12025}. */
    static String describe(InetAddress address, int port) {
        String host = address.getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    static String describe(InetSocketAddress address) {
        return describe(address.getAddress(), address.getPort());
    }
}
