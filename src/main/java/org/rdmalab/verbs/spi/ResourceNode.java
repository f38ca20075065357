package org.rdmalab.verbs.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Lifetime bookkeeping shared by backends: a verbs object that knows its children and closes them
 * before itself, in dependency order (QP, MR, CQ, PD, completion channel), then releases its own
 * resource exactly once. {@link #close()} is idempotent and thread-safe.
 */
public abstract class ResourceNode implements AutoCloseable {

    /** Close order of a kind of child: lower ranks close first. */
    public enum Kind {
        QUEUE_PAIR, MEMORY_REGION, COMPLETION_QUEUE, PROTECTION_DOMAIN, COMPLETION_CHANNEL, CONTEXT
    }

    private final ResourceNode parent;
    private final Kind kind;
    private final List<ResourceNode> children = new ArrayList<>();
    /** Written under this node's lock; volatile so that {@link #isClosed()}, on every verb, takes no lock. */
    private volatile boolean closed;

    /** A node under {@code parent} (null for a root such as a context). */
    protected ResourceNode(ResourceNode parent, Kind kind) {
        this.parent = parent;
        this.kind = kind;
        if (parent != null) {
            parent.adopt(this);
        }
    }

    private synchronized void adopt(ResourceNode child) {
        if (closed) {
            throw new IllegalStateException(kind + " is closed");
        }
        children.add(child);
    }

    private synchronized void release(ResourceNode child) {
        children.remove(child);
    }

    /** True once {@link #close()} has run. */
    public final boolean isClosed() {
        return closed;
    }

    /** Throws IllegalStateException when closed. */
    protected final void ensureOpen() {
        if (isClosed()) {
            throw new IllegalStateException(kind.name().toLowerCase().replace('_', ' ') + " is closed");
        }
    }

    /** Frees the backend resource; runs once, after every child is closed. */
    protected abstract void destroy();

    private synchronized List<ResourceNode> childrenSnapshot() {
        return new ArrayList<>(children);
    }

    private void collectDescendants(List<ResourceNode> into) {
        List<ResourceNode> direct = childrenSnapshot();
        Collections.reverse(direct);
        for (ResourceNode child : direct) {
            into.add(child);
            child.collectDescendants(into);
        }
    }

    @Override
    public final void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        // Every descendant, newest first within a kind, kinds in dependency order: a context
        // destroys its QPs (held by PDs) before the CQs they use.
        List<ResourceNode> descendants = new ArrayList<>();
        collectDescendants(descendants);
        descendants.sort(Comparator.comparing(node -> node.kind));
        for (ResourceNode descendant : descendants) {
            descendant.close();
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        destroy();
        if (parent != null) {
            parent.release(this);
        }
    }
}
