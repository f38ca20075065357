package org.rdmalab.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Closing a parent tears its whole tree down in dependency order, once. */
class ResourceNodeTest {

    private static final class Node extends ResourceNode {
        private final String name;
        private final List<String> destroyed;

        Node(ResourceNode parent, Kind kind, String name, List<String> destroyed) {
            super(parent, kind);
            this.name = name;
            this.destroyed = destroyed;
        }

        @Override
        protected void destroy() {
            destroyed.add(name);
        }

        /** What a verb on this object does first. */
        void use() {
            ensureOpen();
        }
    }

    @Test
    void aContextClosesQpsThenMrsThenCqsThenPdsThenChannels() {
        List<String> destroyed = new ArrayList<>();
        Node context = new Node(null, ResourceNode.Kind.CONTEXT, "ctx", destroyed);
        Node channel = new Node(context, ResourceNode.Kind.COMPLETION_CHANNEL, "channel", destroyed);
        Node cq = new Node(context, ResourceNode.Kind.COMPLETION_QUEUE, "cq", destroyed);
        Node pd = new Node(context, ResourceNode.Kind.PROTECTION_DOMAIN, "pd", destroyed);
        new Node(pd, ResourceNode.Kind.MEMORY_REGION, "mr1", destroyed);
        new Node(pd, ResourceNode.Kind.QUEUE_PAIR, "qp1", destroyed);
        new Node(pd, ResourceNode.Kind.MEMORY_REGION, "mr2", destroyed);
        new Node(pd, ResourceNode.Kind.QUEUE_PAIR, "qp2", destroyed);

        context.close();

        assertEquals(List.of("qp2", "qp1", "mr2", "mr1", "cq", "pd", "channel", "ctx"), destroyed);
        assertTrue(channel.isClosed() && cq.isClosed() && pd.isClosed());
        context.close();
        pd.close();
        assertEquals(8, destroyed.size(), "close is idempotent: nothing is destroyed twice");
    }

    @Test
    void aClosedParentTakesNoNewChildren() {
        List<String> destroyed = new ArrayList<>();
        Node context = new Node(null, ResourceNode.Kind.CONTEXT, "ctx", destroyed);
        Node pd = new Node(context, ResourceNode.Kind.PROTECTION_DOMAIN, "pd", destroyed);
        pd.close();
        assertEquals(List.of("pd"), destroyed);
        assertThrows(IllegalStateException.class,
                () -> new Node(pd, ResourceNode.Kind.MEMORY_REGION, "mr", destroyed));
        context.close();
        assertEquals(List.of("pd", "ctx"), destroyed, "a closed child is not closed again by its parent");
    }

    @Test
    void aVerbOnAClosedObjectNamesTheObjectAndAnOpenOneRuns() {
        List<String> destroyed = new ArrayList<>();
        Node context = new Node(null, ResourceNode.Kind.CONTEXT, "ctx", destroyed);
        Node mr = new Node(new Node(context, ResourceNode.Kind.PROTECTION_DOMAIN, "pd", destroyed),
                ResourceNode.Kind.MEMORY_REGION, "mr", destroyed);
        assertFalse(mr.isClosed());
        assertFalse(context.isClosed());
        mr.use();
        mr.close();
        assertTrue(mr.isClosed());
        assertFalse(context.isClosed(), "closing a child leaves its parent open");
        assertEquals("memory region is closed", assertThrows(IllegalStateException.class, mr::use).getMessage());
        Node channel = new Node(context, ResourceNode.Kind.COMPLETION_CHANNEL, "channel", destroyed);
        context.close();
        assertEquals("completion channel is closed", assertThrows(IllegalStateException.class, channel::use)
                .getMessage());
    }
}
