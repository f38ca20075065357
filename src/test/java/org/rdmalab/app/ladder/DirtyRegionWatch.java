package org.rdmalab.app.ladder;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;

/**
 * {@code -Ddirty=true} in {@link LadderStallMeasure}: why a frame paints the whole window. A
 * diagnostic, not a test: it reads JavaFX's internals by reflection (the measurement runs JavaFX
 * from the class path, so they are open to it), and it waits for each frame to be drawn before
 * the next is copied, which slows the window down.
 *
 * <p>The software renderer paints only the dirty regions of the render graph (the peers the
 * scene copies its changed nodes to each pulse), and the whole window when (a) a dirty node's old
 * and new bounds cover it, (b) a group has more than 12 dirty descendants counted and its bounds
 * cover it, or (c) the scene was copied but nothing in the render graph is dirty: finding no dirty
 * region, the renderer paints everything. After each pulse's copy and before its frame is drawn,
 * this reads which case it is and, for (c), what the scene copied (its dirty nodes and their dirty
 * bits, after the bounds pass) and which nodes the pulse's CSS pass styled again (the deepest with a
 * CSS flag set before it). Every 5 s it prints the counts and the most frequent causes; with the
 * pulse logger on, each pulse's cause goes into its log too.
 */
final class DirtyRegionWatch {

    private static final int CHILDREN_THRESHOLD = 12;
    /** The toolkit holds its pulse listeners weakly. */
    private static Object listening;

    private final Scene scene;
    private final boolean[] measuring;
    private final Object scenePeer;
    private final Method waitForRendering;
    private final Method peerOfNode;
    private final Method updateBounds;
    private final Field dirty;
    private final Field childDirty;
    private final Field accumulated;
    private final Field dirtyBounds;
    private final Field transformedBounds;
    private final Class<?> ngGroup;
    private final Method children;
    private final Field sceneDirtyNodes;
    private final Field sceneDirtyCount;
    private final Field sceneDirtyBits;
    private final Field nodeDirtyBits;
    private final Field cssFlag;
    private final Method addMessage;
    /** What the CSS pass of this pulse styled again, read before it. */
    private String styled = "";
    /** What the scene copies this pulse, or empty when it copies nothing. */
    private String copied = "";
    private final Map<String, long[]> causes = new HashMap<>();
    private long drawn;
    private long nothingDirty;
    private long covering;
    private long printed = System.nanoTime();

    private DirtyRegionWatch(Scene scene, boolean[] measuring) throws ReflectiveOperationException {
        this.scene = scene;
        this.measuring = measuring;
        scenePeer = Class.forName("com.sun.javafx.scene.SceneHelper").getMethod("getPeer", Scene.class).invoke(null, scene);
        waitForRendering = Class.forName("com.sun.javafx.tk.TKScene").getMethod("waitForRenderingToComplete");
        peerOfNode = Class.forName("com.sun.javafx.scene.NodeHelper").getMethod("getPeer", Node.class);
        updateBounds = Node.class.getDeclaredMethod("updateBounds");
        updateBounds.setAccessible(true);
        Class<?> ngNode = Class.forName("com.sun.javafx.sg.prism.NGNode");
        dirty = open(ngNode.getDeclaredField("dirty"));
        childDirty = open(ngNode.getDeclaredField("childDirty"));
        accumulated = open(ngNode.getDeclaredField("dirtyChildrenAccumulated"));
        dirtyBounds = open(ngNode.getDeclaredField("dirtyBounds"));
        transformedBounds = open(ngNode.getDeclaredField("transformedBounds"));
        ngGroup = Class.forName("com.sun.javafx.sg.prism.NGGroup");
        children = ngGroup.getMethod("getChildren");
        sceneDirtyNodes = open(Scene.class.getDeclaredField("dirtyNodes"));
        sceneDirtyCount = open(Scene.class.getDeclaredField("dirtyNodesSize"));
        sceneDirtyBits = open(Scene.class.getDeclaredField("dirtyBits"));
        nodeDirtyBits = open(Node.class.getDeclaredField("dirtyBits"));
        cssFlag = open(Node.class.getDeclaredField("cssFlag"));
        addMessage = Class.forName("com.sun.javafx.logging.PulseLogger").getMethod("addMessage", String.class);
    }

    private static Field open(Field field) {
        field.setAccessible(true);
        return field;
    }

    static void start(Scene scene, boolean[] measuring) throws ReflectiveOperationException {
        DirtyRegionWatch watch = new DirtyRegionWatch(scene, measuring);
        scene.addPreLayoutPulseListener(watch::beforeCss);
        scene.addPostLayoutPulseListener(watch::beforeCopy);
        // After every scene's copy and before the frames are drawn.
        Class<?> listener = Class.forName("com.sun.javafx.tk.TKPulseListener");
        Object proxy = Proxy.newProxyInstance(listener.getClassLoader(), new Class<?>[] {listener}, (self, method, args) ->
                switch (method.getName()) {
                    case "pulse" -> {
                        watch.afterCopy();
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> "dirty region watch";
                });
        listening = proxy;
        Class<?> toolkit = Class.forName("com.sun.javafx.tk.Toolkit");
        toolkit.getMethod("addPostSceneTkPulseListener", listener).invoke(toolkit.getMethod("getToolkit").invoke(null), proxy);
    }

    private void beforeCss() {
        if (!measuring[0]) {
            return;
        }
        try {
            List<String> origins = new ArrayList<>();
            styledAgain(scene.getRoot(), origins);
            styled = origins.size() > 6 ? origins.subList(0, 6) + " and " + (origins.size() - 6) + " more" : origins.toString();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Adds the deepest nodes with a CSS flag set under {@code node}; true when it has one. */
    private boolean styledAgain(Node node, List<String> origins) throws IllegalAccessException {
        if (cssFlag.get(node).toString().equals("CLEAN")) {
            return false;
        }
        boolean below = false;
        if (node instanceof Parent parent) {
            for (Node child : parent.getChildrenUnmodifiable()) {
                below |= styledAgain(child, origins);
            }
        }
        if (!below) {
            origins.add(describe(node) + " " + cssFlag.get(node) + (node.isVisible() ? "" : " (hidden)"));
        }
        return true;
    }

    private void beforeCopy() {
        if (!measuring[0]) {
            return;
        }
        try {
            // The pulse's bounds pass comes next and marks more nodes: run here first (a second run finds nothing to do).
            updateBounds.invoke(scene.getRoot());
            Object[] nodes = (Object[]) sceneDirtyNodes.get(scene);
            int count = sceneDirtyCount.getInt(scene);
            Set<?> sceneBits = (Set<?>) sceneDirtyBits.get(scene);
            if (nodes != null && count == 0 && sceneBits.isEmpty()) {
                copied = "";
                return;
            }
            StringBuilder text = new StringBuilder("scene ").append(sceneBits);
            for (int i = 0; nodes != null && i < count; i++) {
                Node node = (Node) nodes[i];
                text.append("; ").append(describe(node)).append(' ').append(nodeDirtyBits.get(node))
                        .append(shown(node) ? "" : " (hidden)");
            }
            copied = text.append("; styled again ").append(styled).toString();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private void afterCopy() {
        if (!measuring[0]) {
            return;
        }
        try {
            waitForRendering.invoke(scenePeer);
            if (!copied.isEmpty()) {
                drawn++;
                String cause = null;
                Object root = peerOfNode.invoke(null, scene.getRoot());
                if (clean(root)) {
                    nothingDirty++;
                    cause = "nothing dirty in the render graph; copied " + copied;
                } else {
                    Map<Object, Node> nodes = new IdentityHashMap<>();
                    peers(scene.getRoot(), nodes);
                    List<String> found = new ArrayList<>();
                    covering(root, nodes, found);
                    if (!found.isEmpty()) {
                        covering++;
                        cause = "dirty region covering the window: " + found;
                    }
                }
                if (cause != null) {
                    causes.computeIfAbsent(cause, k -> new long[1])[0]++;
                    if (Boolean.getBoolean("javafx.pulseLogger")) {
                        addMessage.invoke(null, "whole window: " + cause);
                    }
                }
            }
            copied = "";
            styled = "";
            if (System.nanoTime() - printed > 5_000_000_000L) {
                printed = System.nanoTime();
                System.out.println("dirty regions: " + drawn + " frames drawn, " + nothingDirty
                        + " with nothing dirty in the render graph, " + covering + " with a dirty region covering the window");
                causes.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(6)
                        .forEach(e -> System.out.println("  " + e.getValue()[0] + "  " + e.getKey()));
                causes.clear();
                drawn = 0;
                nothingDirty = 0;
                covering = 0;
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private void peers(Node node, Map<Object, Node> nodes) throws ReflectiveOperationException {
        nodes.put(peerOfNode.invoke(null, node), node);
        if (node.getClip() != null) {
            peers(node.getClip(), nodes);
        }
        if (node instanceof Parent parent) {
            for (Node child : parent.getChildrenUnmodifiable()) {
                peers(child, nodes);
            }
        }
    }

    private boolean clean(Object peer) throws IllegalAccessException {
        return dirty.get(peer).toString().equals("CLEAN") && !childDirty.getBoolean(peer);
    }

    /** Walks the dirty part of the render graph as the renderer does, adding the nodes whose region covers the window. */
    private void covering(Object peer, Map<Object, Node> nodes, List<String> found) throws ReflectiveOperationException {
        if (clean(peer)) {
            return;
        }
        int counted = accumulated.getInt(peer);
        if (!dirty.get(peer).toString().equals("CLEAN") || counted > CHILDREN_THRESHOLD) {
            Node node = nodes.get(peer);
            Bounds region = region(peer, node);
            if (region != null && region.getMinX() <= 0 && region.getMinY() <= 0
                    && region.getMaxX() >= scene.getWidth() && region.getMaxY() >= scene.getHeight()) {
                found.add(describe(node) + " " + dirty.get(peer) + ", " + counted + " dirty descendants counted");
            }
            return;
        }
        if (ngGroup.isInstance(peer)) {
            for (Object child : (List<?>) children.invoke(peer)) {
                covering(child, nodes, found);
            }
        }
    }

    /** The node's dirty region in the scene: its old bounds joined with its new, else its bounds. */
    private Bounds region(Object peer, Node node) throws ReflectiveOperationException {
        Object bounds = dirtyBounds.get(peer);
        Class<?> base = Class.forName("com.sun.javafx.geom.BaseBounds");
        if ((Boolean) base.getMethod("isEmpty").invoke(bounds)) {
            bounds = transformedBounds.get(peer);
        }
        if ((Boolean) base.getMethod("isEmpty").invoke(bounds) || node == null) {
            return null;
        }
        double minX = ((Number) base.getMethod("getMinX").invoke(bounds)).doubleValue();
        double minY = ((Number) base.getMethod("getMinY").invoke(bounds)).doubleValue();
        double maxX = ((Number) base.getMethod("getMaxX").invoke(bounds)).doubleValue();
        double maxY = ((Number) base.getMethod("getMaxY").invoke(bounds)).doubleValue();
        Bounds local = new BoundingBox(minX, minY, maxX - minX, maxY - minY);
        return node.getParent() == null ? local : node.getParent().localToScene(local);
    }

    /** The node and all its parents are visible. */
    private static boolean shown(Node node) {
        for (Node at = node; at != null; at = at.getParent()) {
            if (!at.isVisible()) {
                return false;
            }
        }
        return true;
    }

    private static String describe(Node node) {
        return node == null ? "(a node not in the scene)" : LadderStallMeasure.describe(node);
    }
}
