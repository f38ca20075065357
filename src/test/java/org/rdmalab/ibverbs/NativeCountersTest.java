package org.rdmalab.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The port counters come from the kernel's hw_counters folder, as rxe lays it out. */
class NativeCountersTest {

    @Test
    void everyNumberInTheFolderIsACounterButLifespan(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("sent_pkts"), "12\n");
        Files.writeString(dir.resolve("rcvd_pkts"), "9\n");
        Files.writeString(dir.resolve("retry_exceeded_err"), "1\n");
        Files.writeString(dir.resolve("lifespan"), "10\n");
        Files.writeString(dir.resolve("garbage"), "n/a\n");
        Files.createDirectory(dir.resolve("sub"));
        Map<String, Long> counters = NativeContext.readCounters(dir);
        assertEquals(List.of("rcvd_pkts", "retry_exceeded_err", "sent_pkts"), List.copyOf(counters.keySet()));
        assertEquals(12L, counters.get("sent_pkts"));
        assertEquals(1L, counters.get("retry_exceeded_err"));
    }

    @Test
    void aDeviceWithoutTheFolderHasNoCounters(@TempDir Path dir) {
        assertTrue(NativeContext.readCounters(dir.resolve("nope")).isEmpty());
    }
}
