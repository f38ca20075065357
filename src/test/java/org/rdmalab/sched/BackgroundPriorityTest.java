package org.rdmalab.sched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmalab.sched.ThreadNiceTest.assumeRoomBelowCurrent;
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
        int base = assumeRoomBelowCurrent();
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
        int base = assumeRoomBelowCurrent();
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
    void theWindowsLaunchersTakeTheStepsFromTheJvmPropertyOrTen() {
        assumeTrue(ThreadNice.supported(), "Linux with /proc/thread-self only");
        int base = kernelNiceOfCurrent();
        String before = System.getProperty("rdmalab.backgroundNice");
        try {
            System.clearProperty("rdmalab.backgroundNice");
            BackgroundPriority.yieldToWindow();
            assertEquals(Math.min(19, base + BackgroundPriority.DEFAULT_STEPS), BackgroundPriority.process().nice());
            System.setProperty("rdmalab.backgroundNice", " 2 ");
            BackgroundPriority.yieldToWindow();
            assertEquals(Math.min(19, base + 2), BackgroundPriority.process().nice());
            for (String wrong : new String[] {"-1", "20", "ten"}) {
                System.setProperty("rdmalab.backgroundNice", wrong);
                BackgroundPriority.yieldToWindow();
                assertEquals(Math.min(19, base + BackgroundPriority.DEFAULT_STEPS), BackgroundPriority.process().nice(),
                        wrong + " falls back to the default");
            }
            System.setProperty("rdmalab.backgroundNice", "19");
            BackgroundPriority.yieldToWindow();
            assertEquals(19, BackgroundPriority.process().nice(), "19 steps: the lowest priority there is");
            System.setProperty("rdmalab.backgroundNice", "0");
            BackgroundPriority.yieldToWindow();
            assertEquals(-1, BackgroundPriority.process().nice(), "0: background threads keep normal priority");
        } finally {
            if (before == null) {
                System.clearProperty("rdmalab.backgroundNice");
            } else {
                System.setProperty("rdmalab.backgroundNice", before);
            }
            BackgroundPriority.process().yieldBelowCaller(0);
        }
    }

    @Test
    void stepsOutsideLinuxsRangeAreRefused() {
        BackgroundPriority setting = new BackgroundPriority();
        assertThrows(IllegalArgumentException.class, () -> setting.yieldBelowCaller(20));
        assertThrows(IllegalArgumentException.class, () -> setting.yieldBelowCaller(-1));
        if (ThreadNice.supported()) {
            setting.yieldBelowCaller(19);
            assertEquals(19, setting.nice());
        }
    }
}
