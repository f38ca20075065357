package org.rdmalab.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;

/**
 * The checks of the machine around the devices, for {@link LocalChecks}: libibverbs and the kernel's
 * RDMA, the kernel modules, each device's provider, the device nodes, the memlock limit and the
 * firewall. Files come from the {@link Host}'s root and tools from its runner.
 *
 * <p>Threads: used by one run on the calling thread.
 */
final class HostChecks {

    private final Host host;

    HostChecks(Host host) {
        this.host = host;
    }


    void libibverbsLibrary(List<Check> checks) {
        Optional<Path> library = findLibrary("libibverbs.so.1");
        if (library.isPresent()) {
            checks.add(Check.pass("libibverbs", phrase("local.libibverbs.found", shown(library.get()))));
        } else {
            checks.add(Check.fail("libibverbs", phrase("local.libibverbs.missing", String.join(", ",
                    host.libraryDirs())), phrase("local.libibverbs.missing.fix")));
        }
    }

    void kernel(List<Check> checks, Optional<Backends.Listing> libibverbs, LocalChecks.Target target) {
        if (libibverbs.isEmpty()) {
            checks.add(Check.skip("kernel RDMA", phrase("local.kernelRdma.noBackend")));
            return;
        }
        VerbsException failure = libibverbs.get().failure();
        String offer = target.localIp() != null ? "doctor " + target.localIp() + " soft0" : "doctor <local_ip> soft0";
        if (failure != null && failure.errno() == Errno.ENOSYS) {
            checks.add(Check.fail("kernel RDMA", phrase("local.kernelRdma.enosys"),
                    phrase("local.kernelRdma.enosys.fix", offer)));
        } else if (failure != null) {
            checks.add(Check.fail("kernel RDMA", Phrase.literal(failure.getMessage()),
                    phrase("local.kernelRdma.failed.fix", offer)));
        } else if (!unlisted(libibverbs.get(), target).isEmpty()) {
            List<String> listed = libibverbs.get().devices().stream().map(Device::name).toList();
            checks.add(Check.fail("kernel RDMA", phrase(unlisted(libibverbs.get(), target).size() == 1
                    ? "local.kernelRdma.unlisted.one" : "local.kernelRdma.unlisted.many",
                    String.join(", ", unlisted(libibverbs.get(), target)), listed.isEmpty()
                    ? phrase("local.kernelRdma.listsNone")
                    : phrase("local.kernelRdma.listsOnly", String.join(", ", listed))),
                    phrase("local.kernelRdma.unlisted.fix", PROVIDER_CONFIG)));
        } else if (libibverbs.get().devices().isEmpty()) {
            checks.add(Check.fail("kernel RDMA", phrase("local.kernelRdma.noDevices"),
                    phrase("local.kernelRdma.noDevices.fix", offer)));
        } else {
            checks.add(Check.pass("kernel RDMA", phrase("local.kernelRdma.lists", libibverbs.get().devices().stream()
                    .map(Device::name).collect(Collectors.joining(", ")))));
        }
    }

    /** The kernel's devices (the target's alone, when given) that libibverbs does not list. */
    private List<String> unlisted(Backends.Listing libibverbs, LocalChecks.Target target) {
        List<String> listed = libibverbs.devices().stream().map(Device::name).toList();
        List<String> kernel = target.device() != null
                ? (host.exists("/sys/class/infiniband/" + target.device()) ? List.of(target.device()) : List.of())
                : host.list("/sys/class/infiniband");
        return kernel.stream().filter(device -> !listed.contains(device)).toList();
    }

    void modules(List<Check> checks, List<String> devices) {
        List<String> needed = new ArrayList<>(List.of("ib_core", "ib_uverbs"));
        for (String device : devices.isEmpty() ? List.of("rxe") : devices) {
            Driver.of(device).map(Driver::module).filter(module -> !needed.contains(module)).ifPresent(needed::add);
        }
        List<String> missing = needed.stream().filter(module -> !moduleLoaded(module)).toList();
        if (missing.isEmpty()) {
            checks.add(Check.pass("kernel modules", phrase("local.modules.loaded", String.join(", ", needed))));
            return;
        }
        Phrase fix = missing.contains("rdma_rxe") ? phrase("local.modules.missing.rxe.fix", String.join(" ", missing))
                : phrase("local.modules.missing.fix", String.join(" ", missing));
        checks.add(Check.fail("kernel modules", phrase("local.modules.missing", String.join(", ", missing)), fix));
    }

    private boolean moduleLoaded(String module) {
        if (host.exists("/sys/module/" + module)) {
            return true;
        }
        return host.read("/proc/modules").orElse("").lines().anyMatch(line -> line.startsWith(module + " "));
    }

    /** Where libibverbs reads which providers to load: one file per provider, each with a line "driver NAME". */
    static final String PROVIDER_CONFIG = "/etc/libibverbs.d";

    /**
     * A device's provider as libibverbs loads it: a file under {@link #PROVIDER_CONFIG} must name
     * it, and {@code lib<name>-rdmav<ABI>.so} must be in the providers' folder ({@code libibverbs/}
     * beside libibverbs) or, where libibverbs looks next, on the library path.
     */
    void provider(List<Check> checks, String device) {
        Optional<Driver> driver = Driver.of(device);
        if (driver.isEmpty()) {
            checks.add(Check.skip("provider " + device, phrase("local.provider.unknown", device)));
            return;
        }
        String name = driver.get().provider();
        String pattern = "lib" + name + "-rdmav";
        Optional<String> library = Optional.empty();
        for (String dir : host.libraryDirs()) {
            for (String folder : List.of(dir + "/libibverbs", dir)) {
                library = host.list(folder).stream().filter(file -> file.startsWith(pattern) && file.endsWith(".so"))
                        .findFirst().map(file -> folder + "/" + file);
                if (library.isPresent()) {
                    break;
                }
            }
            if (library.isPresent()) {
                break;
            }
        }
        Phrase skips = phrase("local.provider.skips", device, pattern);
        Phrase install = phrase("local.provider.install.fix");
        if (library.isEmpty()) {
            checks.add(Check.fail("provider " + device, phrase("local.provider.noLibrary", pattern, skips), install));
            return;
        }
        Optional<String> config = host.list(PROVIDER_CONFIG).stream().filter(file -> !file.startsWith("."))
                .filter(file -> host.read(PROVIDER_CONFIG + "/" + file).orElse("").lines()
                        .map(line -> line.trim().split("\\s+"))
                        .anyMatch(words -> words.length == 2 && words[0].equals("driver") && words[1].equals(name)))
                .findFirst();
        if (config.isEmpty()) {
            checks.add(Check.fail("provider " + device, phrase("local.provider.unnamed", library.get(),
                    PROVIDER_CONFIG, name, device), phrase("local.provider.unnamed.fix", name, name, PROVIDER_CONFIG,
                    name)));
            return;
        }
        checks.add(Check.pass("provider " + device, phrase("local.provider.found", library.get(), PROVIDER_CONFIG,
                config.get())));
    }

    void deviceNodes(List<Check> checks, List<String> devices) {
        Host.Identity identity = host.identity();
        for (String device : devices) {
            Optional<String> uverbs = host.list("/sys/class/infiniband_verbs").stream()
                    .filter(name -> host.read("/sys/class/infiniband_verbs/" + name + "/ibdev").orElse("").equals(device))
                    .findFirst();
            if (uverbs.isEmpty()) {
                checks.add(Check.fail("device node " + device, phrase("local.deviceNode.noUverbs", device),
                        phrase("local.deviceNode.noUverbs.fix")));
                continue;
            }
            String node = "/dev/infiniband/" + uverbs.get();
            Path path = host.path(node);
            if (!Files.exists(path)) {
                checks.add(Check.fail("device node " + device, phrase("local.deviceNode.missing", node),
                        phrase("local.deviceNode.missing.fix")));
                continue;
            }
            try {
                int mode = (Integer) Files.getAttribute(path, "unix:mode");
                int owner = (Integer) Files.getAttribute(path, "unix:uid");
                int group = (Integer) Files.getAttribute(path, "unix:gid");
                String modeText = String.format("%03o", mode & 0777);
                boolean usable = identity.isRoot() || (owner == identity.uid() ? (mode & 0600) == 0600
                        : identity.groups().contains(group) ? (mode & 060) == 060 : (mode & 06) == 06);
                String groupName = host.read("/etc/group").orElse("").lines().map(l -> l.split(":"))
                        .filter(f -> f.length > 2 && f[2].equals(Integer.toString(group))).map(f -> f[0]).findFirst()
                        .orElse(Integer.toString(group));
                Phrase who = phrase("local.deviceNode.who", modeText, owner, groupName);
                if (usable) {
                    checks.add(Check.pass("device node " + device, phrase("local.deviceNode.usable", node, who,
                            identity.uid())));
                } else {
                    checks.add(Check.fail("device node " + device, phrase("local.deviceNode.unusable", node, who,
                            identity.uid()), phrase("local.deviceNode.unusable.fix", groupName, groupName, node)));
                }
            } catch (IOException | UnsupportedOperationException e) {
                checks.add(Check.skip("device node " + device, phrase("local.deviceNode.modeUnknown", node)));
            }
        }
    }

    void memlock(List<Check> checks) {
        Optional<String> line = host.read("/proc/self/limits").orElse("").lines()
                .filter(l -> l.startsWith("Max locked memory")).findFirst();
        if (line.isEmpty()) {
            checks.add(Check.skip("memlock", phrase("local.memlock.noLine")));
            return;
        }
        String soft = line.get().substring("Max locked memory".length()).trim().split("\\s+")[0];
        Host.Identity identity = host.identity();
        Phrase needText = phrase("local.memlock.need", LocalChecks.MEMLOCK_NEEDED / 1024, LocalChecks.LAB_BUFFER_BYTES / 1024,
                LocalChecks.PROBE_BUFFER_BYTES / 1024);
        if (soft.equals("unlimited")) {
            checks.add(Check.pass("memlock", phrase("local.memlock.unlimited", needText)));
            return;
        }
        long limit = Long.parseLong(soft);
        Phrase limitText = phrase("local.memlock.limit", limit / 1024);
        if (identity.isRoot()) {
            checks.add(Check.pass("memlock", phrase("local.memlock.root", limitText)));
        } else if (limit >= LocalChecks.MEMLOCK_NEEDED) {
            checks.add(Check.pass("memlock", phrase("local.memlock.enough", limitText, needText)));
        } else {
            checks.add(Check.fail("memlock", phrase("local.memlock.low", limitText, identity.uid(), needText),
                    phrase("local.memlock.low.fix")));
        }
    }

    // ---- firewall ------------------------------------------------------------------------------


    void firewall(List<Check> checks) {
        Phrase unread = null;
        List<String> dropping = new ArrayList<>();
        boolean read = false;
        boolean accepted = false;
        String dropPolicy = null;
        for (List<String> tool : List.of(List.of("nft", "list", "ruleset"), List.of("iptables-save"))) {
            CommandRunner.Result result = host.commands().run(tool);
            if (!result.ok()) {
                unread = !result.found() ? unreadToo(unread, "local.firewall.notInstalled",
                        "local.firewall.notInstalled.after", tool.get(0)) : result.exitCode() == -1
                        ? unreadToo(unread, "local.firewall.noAnswer", "local.firewall.noAnswer.after", tool.get(0),
                                CommandRunner.TIMEOUT.toSeconds())
                        : unreadToo(unread, "local.firewall.exit", "local.firewall.exit.after", tool.get(0),
                                result.exitCode(), firstLine(result.output()));
                continue;
            }
            read = true;
            for (String raw : result.output().split("\n")) {
                String line = raw.trim();
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.contains("4791")) {
                    if (lower.contains("drop") || lower.contains("reject")) {
                        dropping.add(tool.get(0) + ": " + line);
                    } else if (lower.contains("accept")) {
                        accepted = true;
                    }
                } else if (lower.matches(".*hook input.*policy drop.*") || lower.startsWith(":input drop")) {
                    dropPolicy = tool.get(0) + ": " + line;
                }
            }
        }
        Phrase allow = phrase("local.firewall.allow");
        if (!dropping.isEmpty()) {
            checks.add(Check.fail("firewall", phrase("local.firewall.drops", String.join("; ", dropping)),
                    phrase("local.firewall.drops.fix", allow)));
        } else if (dropPolicy != null && !accepted) {
            checks.add(Check.fail("firewall", phrase("local.firewall.dropPolicy", dropPolicy), allow));
        } else if (read) {
            checks.add(Check.pass("firewall", unread == null ? phrase("local.firewall.open")
                    : phrase("local.firewall.open.unread", unread)));
        } else {
            checks.add(Check.skip("firewall", host.identity().isRoot() ? phrase("local.firewall.unreadable", unread)
                    : phrase("local.firewall.unreadable.notRoot", unread)));
        }
    }

    /**
     * The tools whose rules could not be read: {@code earlier} (null for none) and then one more, said by
     * {@code first} when it is the first and by {@code after} (with {@code earlier} in front) when not.
     */
    private static Phrase unreadToo(Phrase earlier, String first, String after, Object... args) {
        if (earlier == null) {
            return phrase(first, args);
        }
        Object[] all = new Object[args.length + 1];
        all[0] = earlier;
        System.arraycopy(args, 0, all, 1, args.length);
        return phrase(after, all);
    }

    private static String firstLine(String output) {
        String line = output.strip().lines().findFirst().orElse("");
        return line.isEmpty() ? "" : " (" + line + ")";
    }

    private Optional<Path> findLibrary(String name) {
        for (String dir : host.libraryDirs()) {
            Path candidate = host.path(dir + "/" + name);
            if (Files.exists(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private String shown(Path path) {
        return "/" + host.root().relativize(path).toString();
    }

    /** The sentence {@code key} of {@link Check#LOCAL} with {@code args}. */
    private static Phrase phrase(String key, Object... args) {
        return Phrase.from(Check.LOCAL, key, args);
    }

    /** The kernel module and provider library of a device, from its name (rxe0, mlx5_0, siw0 ...). */
    record Driver(String module, String provider) {

        private static final Map<String, Driver> BY_PREFIX = Map.ofEntries(
                Map.entry("rxe", new Driver("rdma_rxe", "rxe")),
                Map.entry("siw", new Driver("siw", "siw")),
                Map.entry("mlx5_", new Driver("mlx5_ib", "mlx5")),
                Map.entry("mlx4_", new Driver("mlx4_ib", "mlx4")),
                Map.entry("bnxt_re", new Driver("bnxt_re", "bnxt_re")),
                Map.entry("irdma", new Driver("irdma", "irdma")),
                Map.entry("efa_", new Driver("efa", "efa")),
                Map.entry("erdma_", new Driver("erdma", "erdma")),
                Map.entry("qedr", new Driver("qedr", "qedr")),
                Map.entry("hns_", new Driver("hns_roce_hw_v2", "hns")),
                Map.entry("vmw_pvrdma", new Driver("vmw_pvrdma", "vmw_pvrdma")));

        static Optional<Driver> of(String device) {
            return BY_PREFIX.entrySet().stream().filter(entry -> device.startsWith(entry.getKey()))
                    .map(Map.Entry::getValue).findFirst();
        }
    }
}
