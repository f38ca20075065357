/**
 * The hex buffer view: {@link org.rdmalab.app.buffer.HexBufferView} (the control: source,
 * caption, base address, highlights), {@link org.rdmalab.app.buffer.HexBufferViewSkin} (a
 * virtualised list of 16-byte rows, each drawn on one canvas) and
 * {@link org.rdmalab.app.buffer.ByteSource} (what it reads, lazily, one visible row at a time).
 * Style in {@code styles/controls.css}, colours from the tokens of {@code styles/rdma-lab.css}.
 *
 * <p>Threads: everything here is used on the JavaFX thread only, and {@code ByteSource.read} is
 * called on it during layout: a source answers from memory (a snapshot or a copy of a registered
 * buffer) and never waits on a device or a peer.
 */
package org.rdmalab.app.buffer;
