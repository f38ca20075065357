package org.rdmalab.app.lab;

import java.time.Instant;
import org.rdmalab.verbs.PacketEvent;

/**
 * One packet the software device sent, received or dropped.
 *
 * @param at when the window received the event
 * @param side which peer's device
 * @param packet the packet
 */
public record PacketRow(Instant at, String side, PacketEvent packet) {
}
