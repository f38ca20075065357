package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.lab.ConnectionDataMessage;
import org.rdmalab.control.lab.LabCodec;
import org.rdmalab.control.pingpong.PingpongMessage;
import org.rdmalab.control.seed.SeedBlock;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.QpType;

/** Connection data on the wire, each field at the bytes the real codec writes. */
class WireImageTest {

    private static final ConnectionData DATA = new ConnectionData(QpType.RC, 0x11, 0xabcdef, 1,
            Gid.parse("::ffff:192.168.1.100"), 0x00007f1234567890L, 0x1234, 11, Mtu.MTU_1024);

    private static WireImage.WireField field(WireImage image, String name) {
        return image.fields().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void seedBlockFieldsSitWhereTheCodecPutsThem() throws Exception {
        WireImage image = WireImage.of("seed", DATA);
        assertEquals("seed", image.protocol());
        assertArrayEquals(SeedBlock.from(DATA).serialize(), image.bytes());
        assertEquals(List.of("addr", "rkey", "qp_num", "lid", "gid"),
                image.fields().stream().map(WireImage.WireField::name).toList());
        assertEquals(SeedBlock.LENGTH, image.fields().stream().mapToInt(WireImage.WireField::length).sum());
        // Change one field at a time: only that field's bytes change.
        byte[] otherQp = SeedBlock.from(new ConnectionData(QpType.RC, 0x99, 0, 1, DATA.gid(), DATA.addr(), DATA.rkey(),
                11, Mtu.MTU_256)).serialize();
        WireImage.WireField qpNum = field(image, "qp_num");
        for (int i = 0; i < SeedBlock.LENGTH; i++) {
            boolean inside = i >= qpNum.offset() && i < qpNum.offset() + qpNum.length();
            if (image.bytes()[i] != otherQp[i]) {
                org.junit.jupiter.api.Assertions.assertTrue(inside, "byte " + i + " changed outside qp_num");
            }
        }
        assertEquals(0x11, ByteBuffer.wrap(image.bytesOf(qpNum)).getInt());
        assertEquals("0x00000011", qpNum.value());
        assertArrayEquals(DATA.gid().raw(), image.bytesOf(field(image, "gid")));
        assertEquals(0x00007f1234567890L, ByteBuffer.wrap(image.bytesOf(field(image, "addr"))).getLong());
        assertEquals(DATA.addr(), SeedBlock.parse(image.bytes()).addr());
    }

    @Test
    void theMemoryLinkIsShownInTheSeedLayoutAndSaysSo() {
        WireImage image = WireImage.of("memory", DATA);
        assertEquals("memory (seed layout)", image.protocol());
        assertArrayEquals(WireImage.of("seed", DATA).bytes(), image.bytes());
    }

    @Test
    void pingpongTextFieldsAreItsColonSeparatedParts() {
        WireImage image = WireImage.of("pingpong", DATA);
        assertArrayEquals(PingpongMessage.from(DATA).serialize(), image.bytes());
        assertEquals(PingpongMessage.LENGTH, image.bytes().length);
        String text = new String(image.bytes(), StandardCharsets.US_ASCII);
        for (String name : List.of("LID", "QPN", "PSN", "GID")) {
            WireImage.WireField f = field(image, name);
            assertEquals(f.value(), text.substring(f.offset(), f.offset() + f.length()), name);
        }
        assertEquals("0001", field(image, "LID").value());
        assertEquals("000011", field(image, "QPN").value());
        assertEquals("abcdef", field(image, "PSN").value());
        assertEquals("00000000000000000000ffffc0a80164", field(image, "GID").value());
        assertEquals(51, field(image, "NUL").offset());
    }

    @Test
    void labFieldsSitInTheConnectionDataFramePayload() throws Exception {
        WireImage image = WireImage.of("lab", DATA);
        byte[] payload = LabCodec.encode(new ConnectionDataMessage(DATA));
        assertArrayEquals(payload, image.bytes());
        assertEquals(LabCodec.TYPE_LENGTH + ConnectionDataMessage.LENGTH, image.bytes().length);
        ByteBuffer buffer = ByteBuffer.wrap(image.bytes());
        assertEquals(2, buffer.getShort(field(image, "type").offset()));
        assertEquals(0x11, buffer.getInt(field(image, "qpn").offset()));
        assertEquals(0xabcdef, buffer.getInt(field(image, "psn").offset()));
        assertEquals(0x1234, buffer.getInt(field(image, "rkey").offset()));
        assertEquals(DATA.addr(), buffer.getLong(field(image, "addr").offset()));
        assertEquals(11, buffer.getLong(field(image, "length").offset()));
        assertEquals(1, buffer.getShort(field(image, "lid").offset()));
        assertEquals(QpType.RC.value(), image.bytes()[field(image, "qp_type").offset()]);
        assertEquals(Mtu.MTU_1024.value(), image.bytes()[field(image, "path_mtu").offset()]);
        assertArrayEquals(DATA.gid().raw(), image.bytesOf(field(image, "gid")));
        // The decoder reads back what the fields say.
        assertEquals(new ConnectionDataMessage(DATA), LabCodec.decode(payload));
        assertEquals(image.bytes().length, image.fields().stream().mapToInt(WireImage.WireField::length).sum());
        assertEquals(List.of(0, 2, 3, 4, 6, 10, 14, 18, 26, 34),
                image.fields().stream().map(WireImage.WireField::offset).toList());
    }
}
