/**
 * The Packets tab: {@link org.rdmalab.app.packets.PacketsView} lists the RoCE v2 packets each
 * software device sent, received or dropped (the lab's packet log, rows of
 * {@link org.rdmalab.app.lab.PacketRow}), and under it {@link org.rdmalab.app.packets.CountersView}
 * / {@link org.rdmalab.app.packets.CountersViewModel} show each side's port counters and how much
 * each moved since the user's mark. Their FXML is in {@code fxml/packets/}.
 *
 * <p>Threads: controllers and view models on the JavaFX thread; the counters are read on the
 * background executor after events and published on the UI executor.
 */
package org.rdmalab.app.packets;
