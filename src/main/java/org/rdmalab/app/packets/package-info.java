/**
 * The Wire tab's Packets and Counters tabs: {@link org.rdmalab.app.packets.PacketsView} lists the
 * RoCE v2 packets each software device sent, received or dropped (the lab's packet log, rows of
 * {@link org.rdmalab.app.lab.PacketRow}); the one picked is opened under it by
 * {@link org.rdmalab.app.packets.PacketView} / {@link org.rdmalab.app.packets.PacketViewModel}: a
 * tree of its headers and fields (values and meanings, from {@link org.rdmalab.wire.Dissector})
 * beside its bytes ({@link org.rdmalab.app.packets.PacketBytesView}, a control with its skin),
 * selecting a field lighting its bytes and the reverse. {@link org.rdmalab.app.packets.CountersView}
 * / {@link org.rdmalab.app.packets.CountersViewModel} show each side's port counters and how much
 * each moved since the user's mark. Their FXML is in {@code fxml/packets/}.
 *
 * <p>Threads: controllers and view models on the JavaFX thread; the counters are read on the
 * background executor after events and published on the UI executor.
 */
package org.rdmalab.app.packets;
