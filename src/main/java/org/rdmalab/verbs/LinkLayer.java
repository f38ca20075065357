package org.rdmalab.verbs;

/** {@code IBV_LINK_LAYER_*}. */
public enum LinkLayer implements Numbered {
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
    @Override
    public int value() {
        return value;
    }

    /** "Ethernet", as ibv_devinfo prints it. */
    public String text() {
        return text;
    }

    /** The link layer with verbs.h value {@code value}. */
    public static LinkLayer of(int value) {
        return Numbered.byValue(LinkLayer.class, value, "link layer");
    }
}
