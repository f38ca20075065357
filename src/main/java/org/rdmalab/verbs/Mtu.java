package org.rdmalab.verbs;

/** {@code enum ibv_mtu}: the enum value (1..5) and the byte size it stands for. */
public enum Mtu implements Numbered {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** The verbs.h value (IBV_MTU_1024 = 3). */
    @Override
    public int value() {
        return value;
    }

    /** The payload size in bytes. */
    public int bytes() {
        return bytes;
    }

    /** {@code IBV_MTU_1024}. */
    public String cName() {
        return "IBV_" + name();
    }

    /** The MTU with verbs.h value {@code value}. */
    public static Mtu of(int value) {
        for (Mtu mtu : values()) {
            if (mtu.value == value) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("no ibv_mtu has value " + value + " (valid: 1..5)");
    }

    /** The MTU of {@code bytes} bytes (256, 512, 1024, 2048 or 4096). */
    public static Mtu ofBytes(int bytes) {
        for (Mtu mtu : values()) {
            if (mtu.bytes == bytes) {
                return mtu;
            }
        }
        throw new IllegalArgumentException("MTU " + bytes + " is not one of 256, 512, 1024, 2048, 4096");
    }

    @Override
    public String toString() {
        return Integer.toString(bytes);
    }
}
