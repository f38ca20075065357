package org.rdmalab.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

class ControlValuesTest {

    @Test
    void connectionDataChecksFieldWidths() {
        ConnectionData data = ConnectionData.rc(0xffffff, 0xffff, Gid.ZERO);
        assertEquals(0xffffff, data.withPsn(0xffffff).psn());
        assertThrows(IllegalArgumentException.class, () -> data.withQpn(0x1000000));
        assertThrows(IllegalArgumentException.class, () -> data.withPsn(-1));
        assertThrows(IllegalArgumentException.class, () -> data.withLid(0x10000));
        assertThrows(IllegalArgumentException.class, () -> data.withBuffer(0, 0, -1));
        assertThrows(NullPointerException.class, () -> data.withGid(null));
    }

    @Test
    void connectionDataReadsLikeAHexDump() {
        ConnectionData data = new ConnectionData(QpType.RC, 0x11, 0, 0, Gid.parse("::ffff:192.168.1.100"),
                0x00007f1234567890L, 0x89abcdef, 11, Mtu.MTU_256);
        assertEquals("RC qpn 0x000011 psn 0x000000 lid 0x0000 gid ::ffff:192.168.1.100 addr 0x00007f1234567890"
                + " rkey 0x89abcdef length 11 mtu 256", data.toString());
    }

    @Test
    void timeoutsHaveTheSeedsDefaultsAndRefuseNonsense() {
        assertEquals(Duration.ofSeconds(30), Timeouts.DEFAULT.accept());
        assertEquals(Duration.ofSeconds(30), Timeouts.DEFAULT.connect());
        assertEquals(Duration.ofSeconds(10), Timeouts.DEFAULT.read());
        assertEquals(Duration.ofMillis(5), Timeouts.DEFAULT.withRead(Duration.ofMillis(5)).read());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Timeouts.DEFAULT.withAccept(Duration.ZERO));
        assertEquals("the accept timeout must be between 1 ms and 1 day, not PT0S", e.getMessage());
    }

    @Test
    void durationsAndBytesInWords() {
        assertEquals("10 s", ControlText.duration(Duration.ofSeconds(10)));
        assertEquals("1.5 s", ControlText.duration(Duration.ofMillis(1500)));
        assertEquals("250 ms", ControlText.duration(Duration.ofMillis(250)));
        assertEquals("\"ok\\0\\x7f\\\"\\\\\"", ControlText.quote(new byte[] {'o', 'k', 0, 0x7f, '"', '\\'}));
        assertEquals("\"" + "a".repeat(64) + "\" (and 6 more bytes)", ControlText.quote("a".repeat(70).getBytes()));
    }

    @Test
    void exceptionMessagesStayOnOneLine() {
        assertEquals("a b", new ControlException(ControlException.Reason.IO, "a\nb").getMessage());
    }

    @Test
    void protocolsByTheirCommandLineNames() {
        assertEquals(ControlProtocol.SEED, ControlProtocol.parse("seed"));
        assertEquals(12025, ControlProtocol.LAB.defaultPort());
        assertEquals(org.rdmalab.control.seed.SeedExchange.PORT, ControlProtocol.SEED.defaultPort());
        assertEquals(org.rdmalab.control.pingpong.PingpongMessage.PORT, ControlProtocol.PINGPONG.defaultPort());
        assertEquals(18515, ControlProtocol.parse(" PingPong ").defaultPort());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ControlProtocol.parse("rdmacm"));
        assertEquals("unknown protocol 'rdmacm'; valid protocols: seed, lab, pingpong", e.getMessage());
    }
}
