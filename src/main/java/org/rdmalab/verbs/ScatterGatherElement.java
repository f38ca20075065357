package org.rdmalab.verbs;

/**
 * {@code struct ibv_sge}: a piece of registered memory.
 *
 * @param address virtual address inside a memory region
 * @param length bytes
 * @param lkey the region's local key
 */
public record ScatterGatherElement(long address, int length, int lkey) {
}
