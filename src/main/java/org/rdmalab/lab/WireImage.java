package org.rdmalab.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.control.lab.ConnectionDataMessage;
import org.rdmalab.control.lab.LabCodec;
import org.rdmalab.control.pingpong.PingpongMessage;
import org.rdmalab.control.seed.SeedBlock;

/**
 * Connection data as the bytes a protocol puts on the wire, with each field's place in them, built
 * by the protocol's own codec ({@link SeedBlock}, {@link PingpongMessage}, {@link LabCodec}).
 *
 * @param protocol "seed", "pingpong", "lab", or "memory (seed layout)" for the in-memory link,
 *     which passes objects and is shown in the seed's layout
 * @param bytes the bytes (a copy)
 * @param fields the fields in wire order
 */
public record WireImage(String protocol, byte[] bytes, List<WireField> fields) {

    /**
     * One field of a wire image.
     *
     * @param name its name in the C struct or the format ({@code qp_num}, {@code QPN})
     * @param offset first byte
     * @param length bytes
     * @param value the value as a person reads it ({@code 0x00000011}, {@code ::ffff:10.0.0.1})
     */
    public record WireField(String name, int offset, int length, String value) {
    }

    /** Copies the bytes and the field list. */
    public WireImage {
        Objects.requireNonNull(protocol, "protocol");
        bytes = bytes.clone();
        fields = List.copyOf(fields);
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The bytes of one field. */
    public byte[] bytesOf(WireField field) {
        return java.util.Arrays.copyOfRange(bytes, field.offset(), field.offset() + field.length());
    }

    /**
     * The image of {@code data} in the format of a link's protocol ({@link PeerLink#protocol()}).
     *
     * @throws IllegalArgumentException for a protocol this class does not know
     */
    public static WireImage of(String linkProtocol, ConnectionData data) {
        return switch (linkProtocol) {
            case "seed" -> seed("seed", data);
            case "memory" -> seed("memory (seed layout)", data);
            case "pingpong" -> pingpong(data);
            case "lab" -> lab(data);
            default -> throw new IllegalArgumentException("no wire image for protocol '" + linkProtocol + "'");
        };
    }

    /** The 34-byte packed {@code struct cm_con_data_t}. */
    private static WireImage seed(String protocol, ConnectionData data) {
        SeedBlock block = SeedBlock.from(data);
        List<WireField> fields = List.of(
                new WireField("addr", 0, 8, String.format("0x%016x", block.addr())),
                new WireField("rkey", 8, 4, String.format("0x%08x", block.rkey())),
                new WireField("qp_num", 12, 4, String.format("0x%08x", block.qpNum())),
                new WireField("lid", 16, 2, String.format("0x%04x", block.lid())),
                new WireField("gid", 18, 16, block.gid().toString()));
        return new WireImage(protocol, block.serialize(), fields);
    }

    /** ibv_rc_pingpong's 52 bytes: {@code "%04x:%06x:%06x:%s"} and a NUL. */
    private static WireImage pingpong(ConnectionData data) {
        PingpongMessage message = PingpongMessage.from(data);
        String[] parts = message.text().split(":");
        String[] names = {"LID", "QPN", "PSN", "GID"};
        List<WireField> fields = new ArrayList<>();
        int offset = 0;
        for (int i = 0; i < parts.length; i++) {
            fields.add(new WireField(names[i], offset, parts[i].length(), parts[i]));
            offset += parts[i].length() + 1;
        }
        fields.add(new WireField("NUL", PingpongMessage.LENGTH - 1, 1, "\\0"));
        return new WireImage("pingpong", message.serialize(), fields);
    }

    /** The payload of the CONNECTION_DATA frame: type, then the 48-byte body. */
    private static WireImage lab(ConnectionData data) {
        ConnectionDataMessage message = new ConnectionDataMessage(data);
        int t = LabCodec.TYPE_LENGTH;
        List<WireField> fields = List.of(
                new WireField("type", 0, t, message.type().code() + " (CONNECTION_DATA)"),
                new WireField("qp_type", t, 1, data.qpType().cName()),
                new WireField("path_mtu", t + 1, 1, data.pathMtu().cName()),
                new WireField("lid", t + 2, 2, String.format("0x%04x", data.lid())),
                new WireField("qpn", t + 4, 4, String.format("0x%06x", data.qpn())),
                new WireField("psn", t + 8, 4, String.format("0x%06x", data.psn())),
                new WireField("rkey", t + 12, 4, String.format("0x%08x", data.rkey())),
                new WireField("addr", t + 16, 8, String.format("0x%016x", data.addr())),
                new WireField("length", t + 24, 8, Long.toString(data.length())),
                new WireField("gid", t + 32, 16, data.gid().toString()));
        return new WireImage("lab", LabCodec.encode(message), fields);
    }
}
