/**
 * Packet captures: {@link org.rdmalab.softroce.capture.PcapWriter} writes the software device's
 * RoCEv2 datagrams as classic pcap (Ethernet, the canonical IPv4 header the ICRC covers, UDP),
 * {@link org.rdmalab.softroce.capture.PcapReader} reads pcap and pcapng from this tool or from
 * real NICs (Ethernet with VLANs, raw IP, Linux cooked), and
 * {@link org.rdmalab.softroce.capture.CaptureInspector} lists the packets and verifies each ICRC
 * (the {@code pcap inspect} command).
 *
 * <p>Threads: {@code PcapWriter} is thread-safe (the device's threads share one capture) and never
 * throws from {@code write}; it keeps the first I/O error and throws it on {@code close}.
 * {@code PcapReader} belongs to one thread. {@code CaptureInspector} is stateless.
 */
package org.rdmalab.softroce.capture;
