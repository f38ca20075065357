package org.rdmalab.doctor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The machine the doctor looks at: a root directory under which {@code /sys}, {@code /proc},
 * {@code /dev}, {@code /etc} and the library folders are read, the tools it runs, and the library
 * folders searched for libibverbs and its providers. {@link #system()} is this machine; tests give
 * a folder holding a fake tree and a fake command runner.
 *
 * @param root the directory that stands for {@code /}
 * @param commands runs {@code ip}, {@code nft}, {@code iptables-save}
 * @param libraryDirs absolute paths (under root) searched for {@code libibverbs.so.1}, in order
 */
public record Host(Path root, CommandRunner commands, List<String> libraryDirs) {

    /** Where Debian, Ubuntu, Fedora and others install libibverbs. */
    public static final List<String> LIBRARY_DIRS = List.of("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
            "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib");

    /** Validates the fields. */
    public Host {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(commands, "commands");
        libraryDirs = List.copyOf(libraryDirs);
    }

    /** This machine: root {@code /}, real tools, the standard folders after those of LD_LIBRARY_PATH. */
    public static Host system() {
        List<String> dirs = new ArrayList<>();
        String extra = System.getenv("LD_LIBRARY_PATH");
        if (extra != null) {
            for (String dir : extra.split(":")) {
                if (dir.startsWith("/")) {
                    dirs.add(dir);
                }
            }
        }
        dirs.addAll(LIBRARY_DIRS);
        CommandRunner tools = CommandRunner.system();
        CommandRunner withAddresses = command -> {
            CommandRunner.Result result = tools.run(command);
            if (!result.found() && command.equals(ADDRESSES)) {
                return new CommandRunner.Result(true, 0, javaAddresses());
            }
            return result;
        };
        return new Host(Path.of("/"), withAddresses, dirs);
    }

    /** The command that lists addresses; on a machine without iproute2 Java's own list answers it. */
    public static final List<String> ADDRESSES = List.of("ip", "-o", "addr", "show");

    /** This machine's addresses in {@code ip -o addr show}'s format, from {@link java.net.NetworkInterface}. */
    private static String javaAddresses() {
        StringBuilder out = new StringBuilder();
        try {
            for (java.net.NetworkInterface netdev : java.util.Collections.list(
                    java.net.NetworkInterface.getNetworkInterfaces())) {
                for (java.net.InterfaceAddress address : netdev.getInterfaceAddresses()) {
                    boolean v4 = address.getAddress() instanceof java.net.Inet4Address;
                    String text = address.getAddress().getHostAddress().replaceAll("%.*", "");
                    out.append(netdev.getIndex()).append(": ").append(netdev.getName()).append(' ')
                            .append(v4 ? "inet " : "inet6 ").append(text).append('/')
                            .append(address.getNetworkPrefixLength()).append('\n');
                }
            }
        } catch (java.net.SocketException e) {
            return "";
        }
        return out.toString();
    }

    /** A fake machine rooted at {@code root} (tests). */
    public static Host at(Path root, CommandRunner commands) {
        return new Host(root, commands, LIBRARY_DIRS);
    }

    /** The path standing for the absolute path {@code absolute}. */
    public Path path(String absolute) {
        return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    /** True when the path exists (a link is followed). */
    public boolean exists(String absolute) {
        return Files.exists(path(absolute));
    }

    /** The trimmed text of a file, or empty when it is missing or unreadable (sysfs answers some reads with EINVAL). */
    public Optional<String> read(String absolute) {
        try {
            return Optional.of(Files.readString(path(absolute), StandardCharsets.UTF_8).trim());
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    /** The names in a folder, sorted; empty when it is missing. */
    public List<String> list(String absolute) {
        try (Stream<Path> entries = Files.list(path(absolute))) {
            return entries.map(p -> p.getFileName().toString()).sorted(Host::naturalOrder).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The name a symbolic link points to, last part only ({@code ../../mlx5_core} → {@code mlx5_core}). */
    public Optional<String> linkName(String absolute) {
        try {
            Path target = Files.readSymbolicLink(path(absolute));
            return Optional.of(target.getFileName().toString());
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** The user this process runs as, from {@code /proc/self/status} (uid 0 when unreadable). */
    public Identity identity() {
        int uid = 0;
        Set<Integer> groups = new HashSet<>();
        for (String line : read("/proc/self/status").orElse("").split("\n")) {
            String[] parts = line.trim().split("\\s+");
            if (parts[0].equals("Uid:") && parts.length > 1) {
                uid = Integer.parseInt(parts[1]);
            } else if ((parts[0].equals("Gid:") && parts.length > 1)) {
                groups.add(Integer.parseInt(parts[1]));
            } else if (parts[0].equals("Groups:")) {
                for (int i = 1; i < parts.length; i++) {
                    groups.add(Integer.parseInt(parts[i]));
                }
            }
        }
        return new Identity(uid, Set.copyOf(groups));
    }

    /**
     * A user: its uid and the groups it is in.
     *
     * @param uid the real uid
     * @param groups the primary and supplementary gids
     */
    public record Identity(int uid, Set<Integer> groups) {

        /** True for root, which ignores file modes and the memlock limit (CAP_DAC_OVERRIDE, CAP_IPC_LOCK). */
        public boolean isRoot() {
            return uid == 0;
        }
    }

    /** "uverbs10" after "uverbs9". */
    private static int naturalOrder(String a, String b) {
        String aDigits = a.replaceAll("^\\D*", "");
        String bDigits = b.replaceAll("^\\D*", "");
        String aText = a.substring(0, a.length() - aDigits.length());
        String bText = b.substring(0, b.length() - bDigits.length());
        if (aText.equals(bText) && aDigits.matches("\\d{1,9}") && bDigits.matches("\\d{1,9}")) {
            return Integer.compare(Integer.parseInt(aDigits), Integer.parseInt(bDigits));
        }
        return a.compareTo(b);
    }
}
