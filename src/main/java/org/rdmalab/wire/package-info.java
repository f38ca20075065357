/**
 * RoCEv2 wire formats: the BTH and extension headers (RETH, AETH, AtomicETH, AtomicAckETH, ImmDt,
 * and DETH for decoding UD captures)
 * as records with byte-exact codecs, the {@link org.rdmalab.wire.Opcode} table, 24-bit PSN
 * arithmetic, whole-packet decoding ({@link org.rdmalab.wire.RocePacket}) and encoding
 * ({@link org.rdmalab.wire.RocePacketEncoder}), the invariant CRC
 * ({@link org.rdmalab.wire.Icrc}), the canonical IPv4 header and the UDP source-port rule, and a
 * packet opened field by field for the window ({@link org.rdmalab.wire.Dissector} makes a
 * {@link org.rdmalab.wire.Dissection}: byte ranges, names, values, meanings as keys, checks).
 * All multi-byte fields are big-endian except the ICRC, which goes least significant byte first.
 * The facts behind each rule are cited from the IBTA specification (Vol. 1 and Annex A17, RoCEv2)
 * and the project's RoCEv2 reference notes. A floor below the backends and the upper layers: it
 * uses only Java, so the software device encodes with it and the window and the command line
 * decode the same bytes with it.
 *
 * <p>Threads: every type here is immutable or stateless and may be used from any thread. Codecs
 * read and write at a caller's {@link java.nio.ByteBuffer} position, so a buffer belongs to one
 * thread at a time. {@link org.rdmalab.wire.Icrc} keeps a {@link java.util.zip.CRC32} per
 * thread. The encode and ICRC paths allocate nothing; decoding allocates one small object per header.
 */
package org.rdmalab.wire;
