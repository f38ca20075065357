package org.rdmalab.verbs;

/**
 * {@code struct ibv_device_attr} (the fields a lab needs).
 *
 * @param firmwareVersion {@code fw_ver}
 * @param nodeGuid {@code node_guid}, as a number (the wire form is big-endian)
 * @param sysImageGuid {@code sys_image_guid}
 * @param maxMrSize {@code max_mr_size}
 * @param vendorId {@code vendor_id}
 * @param vendorPartId {@code vendor_part_id}
 * @param hardwareVersion {@code hw_ver}
 * @param maxQp {@code max_qp}
 * @param maxQpWr {@code max_qp_wr}
 * @param maxSge {@code max_sge}
 * @param maxCq {@code max_cq}
 * @param maxCqe {@code max_cqe}
 * @param maxMr {@code max_mr}
 * @param maxPd {@code max_pd}
 * @param maxQpRdAtomic {@code max_qp_rd_atom}
 * @param maxQpInitRdAtomic {@code max_qp_init_rd_atom}
 * @param atomicCap {@code atomic_cap} (0 none, 1 HCA, 2 global)
 * @param physPortCount {@code phys_port_cnt}
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long sysImageGuid,
        long maxMrSize,
        int vendorId,
        int vendorPartId,
        int hardwareVersion,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtomic,
        int maxQpInitRdAtomic,
        int atomicCap,
        int physPortCount) {

    /** The node GUID as ibv_devinfo prints it: {@code 0200:7fff:fe00:0001}. */
    public String nodeGuidText() {
        String hex = String.format("%016x", nodeGuid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
