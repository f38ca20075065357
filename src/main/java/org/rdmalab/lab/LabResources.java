package org.rdmalab.lab;

import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.ProtectionDomain;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QueuePair;

/**
 * What one side's steps created and learnt: the verbs objects (context, port, GID, PD, CQ, MR, QP),
 * whether the control link is connected, the first send PSN and both sides' connection data. The
 * steps set them (package-private setters); a view reads them through the public getters, which
 * say what exists. {@link LabSession#reset()} releases them.
 *
 * <p>Thread rules: written by the thread that drives the session; a view reads them on that thread
 * or after a step finished.
 */
public final class LabResources {

    private final PeerLink link;
    private Context context;
    private PortAttributes portAttributes;
    private GidEntry gidEntry;
    private String gidReason = "";
    private int gidTableSize;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion mr;
    private QueuePair qp;
    private boolean connected;
    private ConnectionData local;
    private ConnectionData remote;
    private int sendPsn;
    private int receivesPosted;
    private final java.util.Map<QpState, QpAttributes> applied = new java.util.EnumMap<>(QpState.class);

    LabResources(PeerLink link) {
        this.link = link;
    }

    void context(Context opened) {
        context = opened;
    }

    /** The open context, if the device was opened. */
    public Optional<Context> context() {
        return Optional.ofNullable(context);
    }

    PortAttributes portAttributes() {
        return portAttributes;
    }

    void portAttributes(PortAttributes attributes) {
        portAttributes = attributes;
    }

    /** The GID entry chosen for RoCE (absent when gid_idx is -1). */
    public Optional<GidEntry> gidEntry() {
        return Optional.ofNullable(gidEntry);
    }

    void gidEntry(GidEntry entry) {
        gidEntry = entry;
    }

    /**
     * Why gid_idx auto chose its entry ("the GID of 127.0.0.1"), empty when an index was given,
     * and how many entries the port's table had then.
     */
    public String gidReason() {
        return gidReason;
    }

    /** The number of entries of the GID table gid_idx auto chose from (0 when an index was given). */
    public int gidTableSize() {
        return gidTableSize;
    }

    void gidChoice(String reason, int tableSize) {
        gidReason = reason;
        gidTableSize = tableSize;
    }

    ProtectionDomain pd() {
        return pd;
    }

    void pd(ProtectionDomain created) {
        pd = created;
    }

    CompletionQueue cq() {
        return cq;
    }

    void cq(CompletionQueue created) {
        cq = created;
    }

    /** The registered buffer, once registered. */
    public Optional<MemoryRegion> memoryRegion() {
        return Optional.ofNullable(mr);
    }

    MemoryRegion mr() {
        return mr;
    }

    void mr(MemoryRegion created) {
        mr = created;
        link.serveBuffer((offset, length) -> {
            int start = (int) Math.min(offset, created.length());
            return created.read(start, Math.min(length, created.length() - start));
        });
    }

    /** The QP, once created. */
    public Optional<QueuePair> queuePair() {
        return Optional.ofNullable(qp);
    }

    QueuePair qp() {
        return qp;
    }

    void qp(QueuePair created) {
        qp = created;
    }

    boolean connected() {
        return connected;
    }

    void connected(boolean value) {
        connected = value;
    }

    /** The first PSN this side sends with (the seed: 0; ibv_rc_pingpong: random 24 bits). */
    public int sendPsn() {
        return sendPsn;
    }

    /** Sets the first send PSN (before the exchange). */
    public void sendPsn(int psn) {
        if (psn < 0 || psn > 0xffffff) {
            throw new IllegalArgumentException("a PSN is 24 bits; " + psn + " does not fit");
        }
        sendPsn = psn;
    }

    int receivesPosted() {
        return receivesPosted;
    }

    void receivesPosted(int count) {
        receivesPosted = count;
    }

    /** The attributes the last modify to {@code state} gave the QP (through {@link org.rdmalab.verbs.RcPath}), if one did. */
    public Optional<QpAttributes> applied(QpState state) {
        return Optional.ofNullable(applied.get(state));
    }

    void applied(QpState state, QpAttributes attributes) {
        applied.put(state, attributes);
    }

    /** What this peer sent in the exchange. */
    public Optional<ConnectionData> localData() {
        return Optional.ofNullable(local);
    }

    /** What the peer sent in the exchange. */
    public Optional<ConnectionData> remoteData() {
        return Optional.ofNullable(remote);
    }

    void exchanged(ConnectionData sent, ConnectionData received) {
        local = sent;
        remote = received;
    }



    /** The control protocol in use: "seed", "pingpong", "lab" or "memory". */
    public String protocol() {
        return link.protocol();
    }

    /** True once the TCP step connected (until reset). */
    public boolean isConnected() {
        return connected;
    }

    /** The queried port's attributes, once the port was queried. */
    public Optional<PortAttributes> port() {
        return Optional.ofNullable(portAttributes);
    }

    /** The protection domain, once allocated. */
    public Optional<ProtectionDomain> protectionDomain() {
        return Optional.ofNullable(pd);
    }

    /** The completion queue, once created. */
    public Optional<CompletionQueue> completionQueue() {
        return Optional.ofNullable(cq);
    }

    /** This side's connection data as the protocol in use puts it on the wire, once exchanged. */
    public Optional<WireImage> localWire() {
        return Optional.ofNullable(local).map(data -> WireImage.of(link.protocol(), data));
    }

    /** The peer's connection data as the protocol in use put it on the wire, once received. */
    public Optional<WireImage> remoteWire() {
        return Optional.ofNullable(remote).map(data -> WireImage.of(link.protocol(), data));
    }

    /** Closes the context (and with it every verbs object made from it) and forgets them all. */
    void release() {
        if (context != null) {
            context.close();
        }
        context = null;
        pd = null;
        cq = null;
        mr = null;
        qp = null;
        portAttributes = null;
        gidEntry = null;
        gidReason = "";
        gidTableSize = 0;
        connected = false;
        local = null;
        remote = null;
        receivesPosted = 0;
        applied.clear();
    }
}
