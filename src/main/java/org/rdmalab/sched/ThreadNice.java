package org.rdmalab.sched;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import jnr.ffi.LibraryLoader;

/**
 * A thread's nice value on Linux, read from {@code /proc/self/task/TID/stat} and set with
 * {@code setpriority(PRIO_PROCESS, tid, nice)} (on Linux the nice value belongs to a thread, not to
 * the process). Raising a nice value needs no privilege; lowering one below where it was does, and
 * is not attempted. Everywhere else (macOS, Windows, a kernel without {@code /proc/thread-self},
 * libc not loadable, a call refused) every method answers "unknown" or {@code false} and changes
 * nothing: callers treat a lower priority as a wish, never a need.
 */
public final class ThreadNice {

    private static final int PRIO_PROCESS = 0;
    /** The highest nice value Linux takes (the lowest priority). */
    static final int MAX_NICE = 19;
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    private static final Object LOCK = new Object();
    private static PriorityCalls calls;
    private static boolean callsFailed;

    private ThreadNice() {
    }

    /** Whether threads' nice values can be read and set here: Linux with {@code /proc/thread-self}. */
    public static boolean supported() {
        return isLinux(System.getProperty("os.name", "")) && Files.isSymbolicLink(THREAD_SELF);
    }

    static boolean isLinux(String osName) {
        return osName.toLowerCase(Locale.ROOT).contains("linux");
    }

    /** The kernel's id of the calling thread, or empty where {@link #supported()} is false. */
    public static OptionalInt currentTid() {
        if (!supported()) {
            return OptionalInt.empty();
        }
        try {
            // "PID/task/TID"
            return OptionalInt.of(Integer.parseInt(Files.readSymbolicLink(THREAD_SELF).getFileName().toString()));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    /** The nice value of thread {@code tid} of this process, or empty when it cannot be read. */
    public static OptionalInt niceOf(int tid) {
        if (!supported()) {
            return OptionalInt.empty();
        }
        try {
            return parseNice(Files.readString(TASKS.resolve(Integer.toString(tid)).resolve("stat")));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * The nice value in a {@code /proc/.../stat} line: its 19th field, counted after the command
     * name in parentheses (which may hold spaces and parentheses itself, hence the last ')').
     */
    static OptionalInt parseNice(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return OptionalInt.empty();
        }
        String[] fields = stat.substring(close + 1).trim().split("\\s+");
        // After the name: state (field 3) ... nice is field 19, so index 19 - 3 = 16.
        if (fields.length <= 16) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(fields[16]));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * This process's threads, by kernel id, with the name the kernel knows them by (a Java thread's
     * name cut to 15 characters, as {@code top -H} shows it); empty where unsupported.
     */
    public static Map<Integer, String> threads() {
        Map<Integer, String> found = new TreeMap<>();
        if (!supported()) {
            return found;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    int tid = Integer.parseInt(task.getFileName().toString());
                    found.put(tid, Files.readString(task.resolve("comm")).strip());
                } catch (IOException | NumberFormatException e) {
                    // The thread ended while we looked.
                }
            }
        } catch (IOException e) {
            // No /proc: nothing found.
        }
        return found;
    }

    /**
     * Gives thread {@code tid} of this process the nice value {@code nice} (0 to 19) if that is
     * lower priority than it has; never raises a thread's priority.
     *
     * @return whether the thread now runs at {@code nice} or lower priority
     */
    public static boolean lower(int tid, int nice) {
        if (nice < 0 || nice > MAX_NICE) {
            throw new IllegalArgumentException("nice value " + nice + " is outside 0..19");
        }
        OptionalInt now = niceOf(tid);
        if (now.isEmpty()) {
            return false;
        }
        if (now.getAsInt() >= nice) {
            return true;
        }
        PriorityCalls c = calls();
        return c != null && c.setpriority(PRIO_PROCESS, tid, nice) == 0;
    }

    /** {@link #lower(int, int)} for the calling thread; false where unsupported. */
    public static boolean lowerCurrent(int nice) {
        OptionalInt tid = currentTid();
        return tid.isPresent() && lower(tid.getAsInt(), nice);
    }

    private static PriorityCalls calls() {
        synchronized (LOCK) {
            if (calls == null && !callsFailed) {
                try {
                    calls = LibraryLoader.create(PriorityCalls.class).failImmediately().load("c");
                } catch (RuntimeException | LinkageError e) {
                    callsFailed = true;
                }
            }
            return calls;
        }
    }
}
