package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The jars the build ships carry every lab PC's JavaFX natives (docs/packaging.md):
 * {@code rdma-lab.jar} those of Linux x64, Windows x64 and macOS x64, {@code rdma-lab-mac-aarch64.jar}
 * those of Linux x64, Windows x64 and macOS on Apple silicon. JavaFX loads each native by its file
 * name from the jar's root, so a missing file, or a file for the wrong processor, is a window that
 * does not open on that platform. Each file's header names its processor (ELF e_machine, PE Machine,
 * Mach-O cputype); the test lists what it found per platform and fails on the first gap.
 */
class PlatformJarsIT {

    /** What JavaFX 21's javafx-graphics loads on each desktop (glass, prism, fonts, images, effects). */
    private static final List<String> LINUX = List.of("libglass.so", "libglassgtk3.so", "libprism_es2.so",
            "libprism_sw.so", "libprism_common.so", "libjavafx_font.so", "libjavafx_font_freetype.so",
            "libjavafx_font_pango.so", "libjavafx_iio.so", "libdecora_sse.so");
    private static final List<String> WINDOWS = List.of("glass.dll", "prism_d3d.dll", "prism_sw.dll",
            "prism_common.dll", "javafx_font.dll", "javafx_iio.dll", "decora_sse.dll", "msvcp140.dll",
            "vcruntime140.dll", "vcruntime140_1.dll");
    private static final List<String> MAC = List.of("libglass.dylib", "libprism_es2.dylib", "libprism_sw.dylib",
            "libprism_common.dylib", "libjavafx_font.dylib", "libjavafx_iio.dylib", "libdecora_sse.dylib");

    private static final String ELF_X86_64 = "ELF x86-64";
    private static final String PE_AMD64 = "PE x86-64";
    private static final String MACHO_X86_64 = "Mach-O x86-64";
    private static final String MACHO_ARM64 = "Mach-O arm64";

    private static Path target() {
        return Path.of(System.getProperty("rdmalab.jar", "target/rdma-lab.jar")).toAbsolutePath().getParent();
    }

    @Test
    void theMainJarCarriesLinuxWindowsAndMacX64() throws IOException {
        Map<String, String> found = rootNatives(target().resolve("rdma-lab.jar"));
        assertPlatform("rdma-lab.jar", "Linux x64", found, LINUX, ELF_X86_64);
        assertPlatform("rdma-lab.jar", "Windows x64", found, WINDOWS, PE_AMD64);
        assertPlatform("rdma-lab.jar", "macOS x64", found, MAC, MACHO_X86_64);
        assertJffi("rdma-lab.jar", target().resolve("rdma-lab.jar"));
    }

    @Test
    void theAppleSiliconJarCarriesLinuxWindowsAndMacArm64() throws IOException {
        Map<String, String> found = rootNatives(target().resolve("rdma-lab-mac-aarch64.jar"));
        assertPlatform("rdma-lab-mac-aarch64.jar", "Linux x64", found, LINUX, ELF_X86_64);
        assertPlatform("rdma-lab-mac-aarch64.jar", "Windows x64", found, WINDOWS, PE_AMD64);
        assertPlatform("rdma-lab-mac-aarch64.jar", "macOS aarch64", found, MAC, MACHO_ARM64);
        assertJffi("rdma-lab-mac-aarch64.jar", target().resolve("rdma-lab-mac-aarch64.jar"));
    }

    private static void assertPlatform(String jar, String platform, Map<String, String> found, List<String> want,
            String kind) {
        List<String> listed = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (String name : want) {
            String seen = found.get(name);
            if (seen == null) {
                wrong.add(name + " missing");
            } else if (!seen.equals(kind)) {
                wrong.add(name + " is " + seen + ", not " + kind);
            } else {
                listed.add(name);
            }
        }
        System.out.println(jar + " " + platform + " (" + kind + "): " + String.join(" ", listed));
        assertTrue(wrong.isEmpty(), jar + " cannot open the window on " + platform + ": " + wrong);
    }

    /** jnr-ffi's own stub, which the socket setup and the native backend load on Linux. */
    private static void assertJffi(String name, Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            for (String path : List.of("jni/x86_64-Linux/libjffi-1.2.so", "jni/x86_64-Windows/jffi-1.2.dll",
                    "jni/Darwin/libjffi-1.2.jnilib")) {
                assertTrue(file.getEntry(path) != null, name + " lacks " + path);
            }
        }
    }

    /** Every native library at the jar's root, by file name, with the processor its header names. */
    private static Map<String, String> rootNatives(Path jar) throws IOException {
        Map<String, String> natives = new TreeMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (ZipEntry entry : java.util.Collections.list(file.entries())) {
                String name = entry.getName();
                if (name.contains("/") || !(name.endsWith(".so") || name.endsWith(".dll") || name.endsWith(".dylib"))) {
                    continue;
                }
                try (InputStream in = file.getInputStream(entry)) {
                    natives.put(name, kindOf(in.readNBytes(4096)));
                }
            }
        }
        return natives;
    }

    /** "ELF x86-64", "PE x86-64", "Mach-O arm64", ... from the first bytes of a shared library. */
    static String kindOf(byte[] head) {
        ByteBuffer le = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
        if (head.length >= 20 && head[0] == 0x7F && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
            int machine = le.getShort(18) & 0xFFFF;
            return machine == 62 ? ELF_X86_64 : machine == 183 ? "ELF aarch64" : "ELF machine " + machine;
        }
        if (head.length >= 0x40 && head[0] == 'M' && head[1] == 'Z') {
            int pe = le.getInt(0x3C);
            if (pe > 0 && pe + 6 <= head.length && le.getInt(pe) == 0x00004550) {
                int machine = le.getShort(pe + 4) & 0xFFFF;
                return machine == 0x8664 ? PE_AMD64 : machine == 0xAA64 ? "PE aarch64" : "PE machine " + machine;
            }
            return "MZ without a PE header";
        }
        if (head.length >= 8 && le.getInt(0) == 0xFEEDFACF) {
            int cpu = le.getInt(4);
            return cpu == 0x01000007 ? MACHO_X86_64 : cpu == 0x0100000C ? MACHO_ARM64 : "Mach-O cpu " + cpu;
        }
        return "unknown";
    }

    @Test
    void theHeaderReaderTellsTheProcessorsApart() {
        byte[] elf = new byte[64];
        elf[0] = 0x7F;
        elf[1] = 'E';
        elf[2] = 'L';
        elf[3] = 'F';
        elf[18] = 62;
        assertEquals(ELF_X86_64, kindOf(elf));
        elf[18] = (byte) 183;
        assertEquals("ELF aarch64", kindOf(elf));
        byte[] macho = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0xFEEDFACF).putInt(0x0100000C).array();
        assertEquals(MACHO_ARM64, kindOf(macho));
        assertEquals("unknown", kindOf(new byte[8]));
    }
}
