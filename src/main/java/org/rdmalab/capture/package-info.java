/**
 * Packet captures: {@link org.rdmalab.capture.PcapWriter} writes RoCEv2 datagrams as classic pcap
 * (Ethernet, the canonical IPv4 header the ICRC covers, UDP), {@link org.rdmalab.capture.PcapReader}
 * reads pcap and pcapng from this tool or from real NICs (Ethernet with VLANs, raw IP, Linux cooked),
 * and {@link org.rdmalab.capture.CaptureInspector} lists the packets and verifies each ICRC (the
 * {@code pcap inspect} command). A floor beside {@link org.rdmalab.wire}: it uses only Java and
 * {@code wire}, so the software device, the window and the command line read and write the same
 * files.
 *
 * <p>Threads: {@code PcapWriter} is thread-safe (the device's threads share one capture) and never
 * throws from {@code write}; it keeps the first I/O error and throws it on {@code close}.
 * {@code PcapReader} belongs to one thread. {@code CaptureInspector} is stateless.
 */
package org.rdmalab.capture;
