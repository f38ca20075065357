package org.rdmalab.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmalab.sched.ThreadNiceTest.kernelNiceOfCurrent;
import static org.rdmalab.sched.ThreadNiceTest.onNewThread;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmalab.softroce.net.Fabric;
import org.rdmalab.softroce.net.UdpFabric;

class BackgroundPriorityTest {

    @Test
    void withoutTheWindowBackgroundThreadsKeepNormalPriority() throws Exception {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        BackgroundPriority commandLine = new BackgroundPriority();
        assertEquals(-1, commandLine.nice());
        int nice = onNewThread("bg-test-cli", () -> {
            commandLine.applyHere();
            return kernelNiceOfCurrent();
        });
        assertEquals(kernelNiceOfCurrent(), nice, "as the thread that started it");
    }

    @Test
    void onceTheWindowAsksEachBackgroundThreadLowersItselfAsItStarts() throws Exception {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        int base = kernelNiceOfCurrent();
        assumeTrue(base <= 16, "room below this thread's priority");
        BackgroundPriority window = new BackgroundPriority();
        window.yieldBelowCaller(3);
        assertEquals(base + 3, window.nice());
        int[] inTask = new int[1];
        int nice = onNewThread("bg-test-window", () -> {
            window.yielding(() -> inTask[0] = kernelNiceOfCurrent()).run();
            return kernelNiceOfCurrent();
        });
        assertEquals(base + 3, inTask[0], "the task runs at the lower priority");
        assertEquals(base + 3, nice);
        assertEquals(base, kernelNiceOfCurrent(), "the thread that asked keeps its priority");
    }

    @Test
    void soft0sDeviceLoopYieldsOnlyWhenTheWindowAsked() throws Exception {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        int base = kernelNiceOfCurrent();
        assumeTrue(base <= 16, "room below this thread's priority");
        assertEquals(base, loopThreadsNice(), "the command line's devices run at the process's priority");
        BackgroundPriority.process().yieldBelowCaller(3);
        try {
            assertEquals(base + 3, loopThreadsNice());
        } finally {
            BackgroundPriority.process().yieldBelowCaller(0);
        }
        assertEquals(base, loopThreadsNice(), "0 steps: normal priority again for threads that start");
    }

    /** Opens a UDP endpoint and returns the nice value its loop thread runs at. */
    private static int loopThreadsNice() throws Exception {
        Fabric.Receiver ignore = new Fabric.Receiver() {
            @Override
            public void onDatagram(int sourceIp, int sourcePort, byte[] buffer, int offset, int length) {
            }

            @Override
            public void onWritable() {
            }
        };
        try (Fabric.Endpoint endpoint = UdpFabric.INSTANCE.open("test", "nice test loop",
                (Inet4Address) InetAddress.getByName("127.0.0.1"), 0, ignore)) {
            CompletableFuture<Integer> nice = new CompletableFuture<>();
            endpoint.loop().execute(() -> nice.complete(kernelNiceOfCurrent()));
            return nice.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void compilerThreadsAreFoundByTheirKernelNames() {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        assumeTrue(ThreadNice.threads().values().stream()
                        .anyMatch(n -> n.startsWith("C1 CompilerThre") || n.startsWith("C2 CompilerThre")),
                "a HotSpot JVM with a JIT compiler");
        int base = kernelNiceOfCurrent();
        assumeTrue(base <= 18, "room below this thread's priority");
        assertTrue(BackgroundPriority.lowerCompilers(base + 1) >= 1);
        ThreadNice.threads().forEach((tid, name) -> {
            if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                assertEquals(base + 1, ThreadNice.niceOf(tid).orElseThrow(), name);
            }
        });
        assertEquals(base, kernelNiceOfCurrent(), "the thread that asked keeps its priority");
    }

    @Test
    void stepsOutsideLinuxsRangeAreRefused() {
        BackgroundPriority setting = new BackgroundPriority();
        assertThrows(IllegalArgumentException.class, () -> setting.yieldBelowCaller(20));
        assertThrows(IllegalArgumentException.class, () -> setting.yieldBelowCaller(-1));
    }
}
