package org.rdmalab.app.lab;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import org.rdmalab.app.common.UiText;
import org.rdmalab.lab.LabSession;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.BitFlag;
import org.rdmalab.verbs.MemoryRegion;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.QpCapabilities;
import org.rdmalab.verbs.QueuePair;
import org.rdmalab.verbs.VerbsException;

/**
 * The resources tree: for each side its context → PD → MR / CQ / QP with addresses, lengths, keys,
 * access flags, QPN, PSNs and capabilities. Read from the verbs objects on the background executor
 * after steps finish (ibv_query_qp for the PSNs), published on the UI executor.
 */
public final class ResourcesViewModel {

    /**
     * A node of the tree.
     *
     * @param label the node's line
     * @param children its children
     */
    public record Node(String label, List<Node> children) {
        static Node leaf(String label) {
            return new Node(label, List.of());
        }
    }

    private final ReadOnlyObjectWrapper<Node> root = new ReadOnlyObjectWrapper<>(new Node("resources", List.of()));
    private final SideReader<Node> reader;

    public ResourcesViewModel(LabViewModel lab, Executor background, Executor ui) {
        reader = new SideReader<>(lab, background, ui, ResourcesViewModel::read,
                trees -> root.set(new Node("resources", new ArrayList<>(trees.values()))));
        lab.afterEvents(this::refresh);
        lab.sides().addListener((javafx.collections.ListChangeListener<SideViewModel>) change -> refresh());
    }

    /** Reads the tree again, at most one read pending at a time. */
    void refresh() {
        reader.refresh();
    }

    static Node read(String name, LabSession session) {
        try {
            return session.resources().context().map(context -> {
                List<Node> pdChildren = new ArrayList<>();
                session.resources().memoryRegion().ifPresent(mr -> pdChildren.add(memoryRegion(mr)));
                session.resources().queuePair().ifPresent(qp -> {
                    pdChildren.add(new Node(String.format("CQ  cqe %d", qp.sendCq().capacity()), List.of()));
                    pdChildren.add(queuePair(qp));
                });
                List<Node> contextChildren = new ArrayList<>();
                session.resources().memoryRegion().map(MemoryRegion::pd).or(() -> session.resources().queuePair()
                        .map(QueuePair::pd))
                        .ifPresent(pd -> contextChildren.add(new Node("PD  handle " + pd.handle(), pdChildren)));
                String gid = session.resources().gidEntry().map(entry -> ", GID[" + entry.index() + "] " + entry.gid()
                        + " "
                        + entry.type().text()).orElse(", no GID (gid_idx -1)");
                return new Node(name + ": context " + context.device().name() + gid, contextChildren);
            }).orElse(Node.leaf(name + ": " + UiText.text("resources.noDevice")));
        } catch (RuntimeException e) {
            return Node.leaf(name + ": " + e.getMessage());
        }
    }

    private static Node memoryRegion(MemoryRegion mr) {
        return new Node(String.format("MR  addr 0x%x  length %d", mr.address(), mr.length()), List.of(
                Node.leaf(String.format("lkey 0x%x  rkey 0x%x", mr.lkey(), mr.rkey())),
                Node.leaf("access " + BitFlag.cExpression(AccessFlag.class, mr.accessFlags()))));
    }

    private static Node queuePair(QueuePair qp) {
        List<Node> children = new ArrayList<>();
        QpCapabilities caps = qp.capabilities();
        children.add(Node.leaf("state " + qp.state().name() + "  type " + qp.type().name()));
        try {
            QpAttributes attributes = qp.query(0);
            children.add(Node.leaf(String.format("sq_psn %d  rq_psn %d  dest_qp_num 0x%x", attributes.sqPsn(),
                    attributes.rqPsn(), attributes.destQpNum())));
            if (attributes.pathMtu() != null) {
                children.add(Node.leaf("path_mtu " + attributes.pathMtu().bytes() + "  timeout " + attributes.timeout()
                        + "  retry_cnt " + attributes.retryCount() + "  rnr_retry " + attributes.rnrRetry()));
            }
        } catch (VerbsException e) {
            children.add(Node.leaf("ibv_query_qp: " + e.getMessage()));
        }
        children.add(Node.leaf(String.format("cap  max_send_wr %d  max_recv_wr %d  max_send_sge %d  max_recv_sge %d"
                + "  max_inline_data %d", caps.maxSendWr(), caps.maxRecvWr(), caps.maxSendSge(), caps.maxRecvSge(),
                caps.maxInlineData())));
        return new Node(String.format("QP  qp_num 0x%x", qp.qpNum()), children);
    }

    /** The tree's root (its children are the sides). */
    public ReadOnlyObjectProperty<Node> rootProperty() {
        return root.getReadOnlyProperty();
    }
}
