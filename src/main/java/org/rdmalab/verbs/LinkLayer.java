package org.rdmalab.verbs;

/** {@code IBV_LINK_LAYER_*}. */
public enum LinkLayer {
    UNSPECIFIED(0, "Unspecified"),
    INFINIBAND(1, "InfiniBand"),
    ETHERNET(2, "Ethernet");

    private final int value;
    private final String text;

    LinkLayer(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The verbs.h value. */
    public int value() {
        return value;
    }

    /** "Ethernet", as ibv_devinfo prints it. */
    public String text() {
        return text;
    }

    /** The link layer with verbs.h value {@code value}. */
    public static LinkLayer of(int value) {
        for (LinkLayer layer : values()) {
            if (layer.value == value) {
                return layer;
            }
        }
        throw new IllegalArgumentException("no link layer has value " + value);
    }
}
