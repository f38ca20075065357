package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.BindException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.Collections;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The one line a user reads when the server side cannot listen, for each cause the system gives:
 * the port is taken, the address is another machine's, a port below 1024 without root, anything
 * else. Each choice is tested on both sides (the port limits 0, 1, 1023 and 1024; an address of
 * this machine or not; a bind refusal or another socket error).
 */
class ListenFailureTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static ControlException failure(IOException e, int port, boolean local) throws Exception {
        return failure(e, InetAddress.getByName("127.0.0.1"), port, local);
    }

    private static ControlException failure(IOException e, InetAddress address, int port, boolean local) {
        ControlException failure = ControlListener.bindFailure(e, address, port, local);
        assertSame(e, failure.getCause(), "the system's exception stays the cause");
        return failure;
    }

    private static String needsRoot(int port) {
        return "listening on TCP port " + port + " needs root (Permission denied); choose a --tcp-port above 1023";
    }

    private static String cannotListen(String where, String why) {
        return "cannot listen on " + where + " (" + why + "); choose another --tcp-port or local IP";
    }

    @Test
    void aPortInUseIsSaidFirstWhateverElseIsTrue() throws Exception {
        for (boolean local : new boolean[] {true, false}) {
            ControlException e = failure(new BindException("Address already in use"), 80, local);
            assertEquals(ControlException.Reason.PORT_IN_USE, e.reason());
            assertEquals("TCP port 80 is already in use on 127.0.0.1; is another demo running? choose another"
                    + " --tcp-port", e.getMessage());
        }
    }

    @Test
    void anAddressTheSystemCannotAssignOrThatIsNotThisMachinesIsRefusedAsSuch() throws Exception {
        String notOurs = "192.0.2.1 is not an address of this machine; give one of its own IP addresses as <local_ip>";
        InetAddress foreign = InetAddress.getByName("192.0.2.1");
        // The system's word alone is enough, even for an address that looks local.
        ControlException assign = failure(new BindException("Cannot assign requested address"), foreign, 12025, true);
        assertEquals(ControlException.Reason.BAD_ADDRESS, assign.reason());
        assertEquals(notOurs, assign.getMessage());
        // And not being one of this machine's addresses is enough whatever the system said.
        ControlException other = failure(new BindException("Permission denied"), foreign, 80, false);
        assertEquals(ControlException.Reason.BAD_ADDRESS, other.reason());
        assertEquals(notOurs, other.getMessage());
        // A local address with another refusal is not called foreign.
        ControlException local = failure(new BindException("Permission denied"), foreign, 12025, true);
        assertEquals(ControlException.Reason.IO, local.reason());
        assertEquals(cannotListen("192.0.2.1:12025", "Permission denied"), local.getMessage());
    }

    @Test
    void aBindRefusalBelowPort1024SaysItNeedsRootAndFromPort1024ItDoesNot() throws Exception {
        for (int port : new int[] {1, 80, 1023}) {
            ControlException e = failure(new BindException("Permission denied"), port, true);
            assertEquals(ControlException.Reason.IO, e.reason());
            assertEquals(needsRoot(port), e.getMessage());
        }
        assertEquals(cannotListen("127.0.0.1:1024", "Permission denied"),
                failure(new BindException("Permission denied"), 1024, true).getMessage());
        // Port 0 (any free port) never needs root.
        assertEquals(cannotListen("127.0.0.1:0", "Permission denied"),
                failure(new BindException("Permission denied"), 0, true).getMessage());
        // Another socket error on a low port is said in the system's words.
        ControlException other = failure(new SocketException("Protocol not available"), 80, true);
        assertEquals(ControlException.Reason.IO, other.reason());
        assertEquals(cannotListen("127.0.0.1:80", "Protocol not available"), other.getMessage());
    }

    @Test
    void theWildcardLoopbackAndThisMachinesInterfacesAreLocalAndTestNetIsNot() throws Exception {
        assertTrue(ControlListener.isLocal(InetAddress.getByName("0.0.0.0")));
        assertTrue(ControlListener.isLocal(LOOPBACK));
        assertTrue(ControlListener.isLocal(InetAddress.getByName("127.1.2.3")), "all of 127/8 is loopback");
        assertTrue(ControlListener.isLocal(InetAddress.getByName("::1")));
        assertFalse(ControlListener.isLocal(InetAddress.getByName("192.0.2.1")), "TEST-NET-1 is nobody's");
        assertFalse(ControlListener.isLocal(InetAddress.getByName("198.51.100.7")), "TEST-NET-2 is nobody's");
        Optional<InetAddress> own = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(NetworkInterface::inetAddresses)
                .filter(address -> !address.isLoopbackAddress() && !address.isLinkLocalAddress())
                .findFirst();
        own.ifPresent(address -> assertTrue(ControlListener.isLocal(address), address + " is this machine's"));
    }

    @Test
    void aPortOutOfRangeIsRefusedBeforeAnySocketIsMade() {
        for (int port : new int[] {-1, 65536}) {
            ControlException e = assertThrows(ControlException.class, () -> ControlListener.bind("127.0.0.1", port));
            assertEquals(ControlException.Reason.BAD_ADDRESS, e.reason());
            assertEquals("TCP port " + port + " is out of range; choose a --tcp-port between 1 and 65535",
                    e.getMessage());
        }
    }

    @Test
    void aListenerThatCannotBindLeavesNoSocketOpen() throws Exception {
        Path descriptors = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(descriptors), "open descriptors are counted on Linux");
        try (ServerSocket holder = new ServerSocket(0, 1, LOOPBACK)) {
            int port = holder.getLocalPort();
            long before = count(descriptors);
            for (int i = 0; i < 64; i++) {
                assertEquals(ControlException.Reason.PORT_IN_USE, assertThrows(ControlException.class,
                        () -> ControlListener.bind(LOOPBACK.getHostAddress(), port)).reason());
            }
            long after = count(descriptors);
            assertTrue(after - before < 16, "64 failed binds left " + (after - before) + " descriptors open");
        }
    }

    private static long count(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.count();
        }
    }
}
