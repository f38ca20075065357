package org.rdmalab.verbs;

/** {@code struct ibv_device}: an RDMA device one can open. */
public interface Device {

    /** The device name ({@code soft0}, {@code rxe0}, {@code mlx5_0}). */
    String name();

    /** The backend that provides it ("software", "libibverbs"). */
    String backend();

    /** A short description for lists: "software RoCE v2 on 127.0.0.1:4791". */
    String description();

    /** {@code ibv_open_device}. */
    Context open() throws VerbsException;
}
