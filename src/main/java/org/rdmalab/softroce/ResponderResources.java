package org.rdmalab.softroce;

import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.wire.Aeth;
import org.rdmalab.wire.Opcode;
import org.rdmalab.wire.Psn;
import org.rdmalab.wire.RocePacket;

/**
 * The READs and atomics the responder executed, kept to answer them again (rxe's
 * {@code resp.resources} ring of {@code struct resp_res}, {@code max_dest_rd_atomic} slots), and
 * the answer to every duplicate request ({@code duplicate_request}, {@code find_resource}).
 *
 * <p>Threads: the transport loop only.
 */
final class ResponderResources {

    private final QpConfig config;
    private final ResponderInfo info;
    private final ResponderReplies replies;
    private Resource[] resources = newResources(1);
    private int nextResource;

    ResponderResources(QpConfig config, ResponderInfo info, ResponderReplies replies) {
        this.config = config;
        this.info = info;
        this.replies = replies;
    }

    /** INIT to RTR: {@code count} empty slots ({@code max_dest_rd_atomic}, at least one). */
    void start(int count) {
        resources = newResources(count);
        nextResource = 0;
    }

    /** Reset: every slot forgets what it held. */
    void clear() {
        for (Resource resource : resources) {
            resource.clear();
        }
    }

    /**
     * {@code duplicate_request}: SENDs and WRITEs are acknowledged again with the last PSN; an
     * atomic's saved result is replayed from the resource that holds it. A READ asked again, in
     * whole or from a later PSN after lost responses, is answered from its PSN on if it is the
     * saved READ or a part of it (same rkey, its range inside the original one): from the first
     * PSN with FIRST or ONLY, from a later one continuing the message with MIDDLE … LAST. Any other
     * duplicate READ, and a duplicate with no saved resource, is dropped without an answer (rxe's
     * class D). A READ whose memory region is gone by then is a remote access error.
     */
    void duplicateRequest(RocePacket packet, int psn) {
        Opcode op = packet.opcode();
        if (op.isSend() || op.isWrite()) {
            replies.sendAcknowledge(Aeth.ACK_SYNDROME, Psn.add(info.expectedPsn, -1));
            return;
        }
        Resource resource = findResource(psn, op.isReadRequest());
        if (resource == null) {
            return;
        }
        if (op.isReadRequest()) {
            int rkey = packet.rethRkey();
            long address = packet.rethVirtualAddress();
            long length = packet.rethDmaLength();
            if (!resource.holds(rkey, address, length)) {
                return;
            }
            SoftMemoryRegion region = null;
            if (length != 0) {
                region = ResponderExecution.checkRkey(config, rkey, address, length, AccessFlag.REMOTE_READ);
                if (region == null) {
                    replies.responderError(psn, Aeth.NAK_REMOTE_ACCESS_ERROR, null, false);
                    return;
                }
            }
            replies.sendReadResponses(psn, psn == resource.firstPsn, region, address, length);
        } else {
            replies.sendAtomicAcknowledge(psn, resource.original);
        }
    }

    /** {@code find_resource}. */
    private Resource findResource(int psn, boolean read) {
        for (Resource resource : resources) {
            if (resource.saved && resource.read == read && Psn.diff(psn, resource.firstPsn) >= 0
                    && Psn.diff(psn, resource.firstPsn) < resource.psnCount) {
                return resource;
            }
        }
        return null;
    }

    /** Saves a READ or atomic in the next resource slot, over the oldest one ({@code rxe_prepare_res}). */
    void saveResource(boolean read, int firstPsn, int psnCount, long original, int rkey, long address,
                      long length) {
        resources[nextResource].save(read, firstPsn, psnCount, original, rkey, address, length);
        nextResource = (nextResource + 1) % resources.length;
    }

    private static Resource[] newResources(int count) {
        Resource[] slots = new Resource[count];
        for (int i = 0; i < count; i++) {
            slots[i] = new Resource();
        }
        return slots;
    }

    /**
     * A READ or atomic the responder executed, kept to answer duplicates (rxe's {@code struct
     * resp_res}): its PSNs, an atomic's original value, and the rkey and range it named. The slots
     * are made when the QP reaches RTR and overwritten in turn, as rxe reuses its
     * {@code resp.resources} ring, so executing a READ or atomic allocates nothing.
     */
    private static final class Resource {
        boolean saved;
        boolean read;
        int firstPsn;
        int psnCount;
        long original;
        int rkey;
        long address;
        long length;

        void save(boolean read, int firstPsn, int psnCount, long original, int rkey, long address, long length) {
            this.saved = true;
            this.read = read;
            this.firstPsn = firstPsn;
            this.psnCount = psnCount;
            this.original = original;
            this.rkey = rkey;
            this.address = address;
            this.length = length;
        }

        void clear() {
            saved = false;
        }

        /** Whether a request for {@code length} bytes at {@code address} with {@code rkey} is this one or a part of it. */
        boolean holds(int otherRkey, long otherAddress, long otherLength) {
            return otherRkey == rkey && Long.compareUnsigned(otherAddress, address) >= 0 && otherLength <= length
                    && Long.compareUnsigned(otherAddress + otherLength, address + length) <= 0;
        }
    }
}
