package org.rdmalab.doctor;

import java.io.IOException;
import java.net.Inet4Address;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.GidType;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.PortState;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The checks one machine can make alone: libibverbs and the provider of each device, the kernel
 * modules, the device nodes, the memlock limit, the port, the netdev and its MTU, the GID table and
 * the firewall. Files come from the {@link Host}'s root and tools from its runner, so each failure
 * can be shown with a fake tree; devices come from the verbs backends.
 *
 * <p>Threads: one run on the calling thread; nothing is kept between runs.
 */
public final class LocalChecks {

    /** The largest header rxe puts in front of a payload; the netdev MTU less this is the room for RoCE payload. */
    public static final int ROCE_HEADER_ROOM = 80;

    /** The lab's default bulk buffer (the bulk scenario's 64 KiB). */
    public static final int LAB_BUFFER_BYTES = 64 * 1024;

    /** The probe's buffer: room for a full 4096-byte packet and a small message. */
    public static final int PROBE_BUFFER_BYTES = 2 * 4096;

    /** What the memlock limit must allow for a user that is not root: both buffers above. */
    public static final long MEMLOCK_NEEDED = LAB_BUFFER_BYTES + PROBE_BUFFER_BYTES;

    /**
     * What to check.
     *
     * @param localIp {@code <local_ip>}, or null for the host checks alone
     * @param device {@code <device>}, or null for every device under /sys/class/infiniband
     * @param options how to open the software device (its address, UDP port, link MTU)
     * @param pathMtu the path MTU the user asks for, or null for the active MTU
     * @param port the device port (1)
     */
    public record Target(String localIp, String device, DeviceOptions options, Mtu pathMtu, int port) {
    }

    /**
     * The checks in order, and the facts for a peer when a device and address were given.
     *
     * @param checks what was checked
     * @param facts this side's facts, empty without a device and an address
     */
    public record Result(List<Check> checks, Optional<SideFacts> facts) {

        /** True when no check failed. */
        public boolean passed() {
            return checks.stream().noneMatch(Check::failed);
        }
    }

    private final Host host;
    private final Backends backends;

    /** Checks {@code host} with the devices of {@code backends}. */
    public LocalChecks(Host host, Backends backends) {
        this.host = host;
        this.backends = backends;
    }

    /** Runs the checks for {@code target}. */
    public Result run(Target target) {
        List<Check> checks = new ArrayList<>();
        List<Backends.Listing> listings = backends.list(target.options());
        Optional<Device> software = findIn(listings, "software", target.device());
        if (software.isPresent()) {
            Optional<SideFacts> facts = softwareDevice(checks, software.get(), target, listings);
            firewall(checks);
            return new Result(List.copyOf(checks), facts);
        }
        Optional<Backends.Listing> libibverbs = listings.stream()
                .filter(listing -> listing.provider().name().equals("libibverbs")).findFirst();
        libibverbsLibrary(checks);
        kernel(checks, libibverbs, target);
        List<String> devices = target.device() != null ? List.of(target.device()) : host.list("/sys/class/infiniband");
        modules(checks, devices);
        for (String device : devices) {
            provider(checks, device);
        }
        deviceNodes(checks, devices);
        memlock(checks);
        Optional<SideFacts> facts = Optional.empty();
        for (String device : devices) {
            Optional<SideFacts> deviceFacts = nativeDevice(checks, device, libibverbs, target);
            if (target.device() != null) {
                facts = deviceFacts;
            }
        }
        if (target.localIp() != null || !devices.isEmpty()) {
            firewall(checks);
        }
        return new Result(List.copyOf(checks), target.localIp() == null ? Optional.empty() : facts);
    }

    private static Optional<Device> findIn(List<Backends.Listing> listings, String backend, String name) {
        if (name == null) {
            return Optional.empty();
        }
        return listings.stream().filter(listing -> listing.provider().name().equals(backend))
                .flatMap(listing -> listing.devices().stream()).filter(device -> device.name().equals(name)).findFirst();
    }

    // ---- the software device -------------------------------------------------------------------

    private Optional<SideFacts> softwareDevice(List<Check> checks, Device device, Target target,
            List<Backends.Listing> listings) {
        String nativeNote = listings.stream().filter(listing -> listing.failure() != null)
                .map(listing -> " (" + listing.provider().name() + ": " + listing.failure().errno().name() + ")")
                .findFirst().orElse("");
        checks.add(Check.skip("libibverbs", phrase("local.libibverbs.softwareDevice", device.name(), nativeNote)));
        DeviceOptions options = target.options();
        String ip = options.address().getHostAddress();
        PortAttributes port;
        List<GidEntry> gids;
        try (Context context = device.open()) {
            port = context.queryPort(target.port());
            gids = context.gidTable(target.port());
        } catch (VerbsException e) {
            checks.add(Check.fail("device", phrase("local.device.notOpened", device.name(), e.getMessage()),
                    e.errno() == Errno.EADDRINUSE ? phrase("local.device.notOpened.inUse.fix", options.udpPort(), ip)
                            : phrase("local.device.notOpened.fix")));
            return Optional.empty();
        }
        checks.add(Check.pass("device", phrase("local.device.opened", device.name(), device.description())));
        checks.add(portCheck(device.name(), target.port(), port.state().name(), port.physStateText(),
                port.linkLayer().text(), null));
        Optional<Address> address = addresses().stream().filter(a -> a.ip().equals(ip)).findFirst()
                .or(() -> addresses().stream().filter(a -> a.netdev().equals("lo") && a.ipv4()
                        && PeerDoctor.network(a.ip(), a.prefixLength()).equals(PeerDoctor.network(ip, a.prefixLength())))
                        .map(a -> new Address(a.netdev(), ip, a.prefixLength(), true)).findFirst());
        String netdev = address.map(Address::netdev).orElse("");
        int netdevMtu = netdev.isEmpty() ? -1 : netdevMtu(netdev);
        if (address.isEmpty()) {
            checks.add(Check.fail("netdev", phrase("local.netdev.notHere", ip, describeAddresses()),
                    phrase("local.netdev.notHere.fix")));
        } else {
            checks.add(Check.pass("netdev", phrase("local.netdev.holds", netdev, ip, address.get().prefixLength(),
                    host.read("/sys/class/net/" + netdev + "/operstate").orElse("?"), netdevMtu)));
        }
        int activeMtu = port.activeMtu().bytes();
        checks.add(mtuCheck(device.name(), target, netdev, netdevMtu, activeMtu, true, true));
        GidChoice choice = gidCheck(checks, device.name(), target.port(), gids, ip, netdev);
        return Optional.of(new SideFacts(device.name(), device.backend(), ip, netdev,
                address.map(Address::prefixLength).orElse(-1), netdevMtu, activeMtu,
                target.pathMtu() == null ? -1 : target.pathMtu().bytes(), port.linkLayer().text(), port.state().name(),
                choice.index(), choice.gid(), choice.type()));
    }

    // ---- host checks ---------------------------------------------------------------------------

    private void libibverbsLibrary(List<Check> checks) {
        Optional<Path> library = findLibrary("libibverbs.so.1");
        if (library.isPresent()) {
            checks.add(Check.pass("libibverbs", phrase("local.libibverbs.found", shown(library.get()))));
        } else {
            checks.add(Check.fail("libibverbs", phrase("local.libibverbs.missing", String.join(", ",
                    host.libraryDirs())), phrase("local.libibverbs.missing.fix")));
        }
    }

    private void kernel(List<Check> checks, Optional<Backends.Listing> libibverbs, Target target) {
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
    private List<String> unlisted(Backends.Listing libibverbs, Target target) {
        List<String> listed = libibverbs.devices().stream().map(Device::name).toList();
        List<String> kernel = target.device() != null
                ? (host.exists("/sys/class/infiniband/" + target.device()) ? List.of(target.device()) : List.of())
                : host.list("/sys/class/infiniband");
        return kernel.stream().filter(device -> !listed.contains(device)).toList();
    }

    private void modules(List<Check> checks, List<String> devices) {
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
    private void provider(List<Check> checks, String device) {
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

    private void deviceNodes(List<Check> checks, List<String> devices) {
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

    private void memlock(List<Check> checks) {
        Optional<String> line = host.read("/proc/self/limits").orElse("").lines()
                .filter(l -> l.startsWith("Max locked memory")).findFirst();
        if (line.isEmpty()) {
            checks.add(Check.skip("memlock", phrase("local.memlock.noLine")));
            return;
        }
        String soft = line.get().substring("Max locked memory".length()).trim().split("\\s+")[0];
        Host.Identity identity = host.identity();
        Phrase needText = phrase("local.memlock.need", MEMLOCK_NEEDED / 1024, LAB_BUFFER_BYTES / 1024,
                PROBE_BUFFER_BYTES / 1024);
        if (soft.equals("unlimited")) {
            checks.add(Check.pass("memlock", phrase("local.memlock.unlimited", needText)));
            return;
        }
        long limit = Long.parseLong(soft);
        Phrase limitText = phrase("local.memlock.limit", limit / 1024);
        if (identity.isRoot()) {
            checks.add(Check.pass("memlock", phrase("local.memlock.root", limitText)));
        } else if (limit >= MEMLOCK_NEEDED) {
            checks.add(Check.pass("memlock", phrase("local.memlock.enough", limitText, needText)));
        } else {
            checks.add(Check.fail("memlock", phrase("local.memlock.low", limitText, identity.uid(), needText),
                    phrase("local.memlock.low.fix")));
        }
    }

    // ---- one native device ---------------------------------------------------------------------

    private Optional<SideFacts> nativeDevice(List<Check> checks, String device, Optional<Backends.Listing> libibverbs,
            Target target) {
        String base = "/sys/class/infiniband/" + device;
        if (!host.exists(base)) {
            String known = String.join(", ", host.list("/sys/class/infiniband"));
            checks.add(Check.fail("device", phrase("local.device.missing", device,
                    known.isEmpty() ? phrase("local.device.missing.none") : known), known.isEmpty()
                    ? phrase("local.device.missing.create.fix", device) : phrase("local.device.missing.fix", known)));
            return Optional.empty();
        }
        String portDir = base + "/ports/" + target.port();
        String state = host.read(portDir + "/state").orElse("?");
        String physState = host.read(portDir + "/phys_state").orElse("?");
        String linkLayer = host.read(portDir + "/link_layer").orElse("?");
        String netdev = host.read(base + "/parent")
                .or(() -> host.list(portDir + "/gid_attrs/ndevs").stream()
                        .map(i -> host.read(portDir + "/gid_attrs/ndevs/" + i).orElse("")).filter(s -> !s.isEmpty())
                        .findFirst())
                .orElse("");
        checks.add(portCheck(device, target.port(), stateName(state), physState, linkLayer, netdev));
        int netdevMtu = -1;
        Optional<Address> address = Optional.empty();
        if (linkLayer.equals("Ethernet")) {
            if (netdev.isEmpty()) {
                checks.add(Check.fail("netdev", phrase("local.netdev.unnamed", device),
                        phrase("local.netdev.unnamed.fix", device, device)));
            } else {
                netdevMtu = netdevMtu(netdev);
                address = netdevCheck(checks, netdev, netdevMtu, target.localIp());
            }
        }
        int activeMtu = activeMtu(libibverbs, device, target.port()).orElse(netdevMtu > 0
                ? rxeActiveMtu(netdevMtu).map(Mtu::bytes).orElse(-1) : -1);
        if (linkLayer.equals("Ethernet") && netdevMtu > 0) {
            checks.add(mtuCheck(device, target, netdev, netdevMtu, activeMtu,
                    activeMtu(libibverbs, device, target.port()).isPresent(), false));
        }
        List<GidEntry> gids = sysfsGids(portDir, target.port());
        GidChoice choice = gidCheck(checks, device, target.port(), gids, target.localIp(), netdev);
        if (target.localIp() == null) {
            return Optional.empty();
        }
        String backend = activeMtu(libibverbs, device, target.port()).isPresent() ? "libibverbs" : "sysfs";
        return Optional.of(new SideFacts(device, backend, target.localIp(), netdev,
                address.map(Address::prefixLength).orElse(-1), netdevMtu, activeMtu,
                target.pathMtu() == null ? -1 : target.pathMtu().bytes(), linkLayer, stateName(state), choice.index(),
                choice.gid(), choice.type()));
    }

    private static String stateName(String sysfs) {
        int colon = sysfs.indexOf(':');
        return colon < 0 ? sysfs : sysfs.substring(colon + 1).trim();
    }

    private Optional<Integer> activeMtu(Optional<Backends.Listing> libibverbs, String device, int port) {
        if (libibverbs.isEmpty()) {
            return Optional.empty();
        }
        for (Device candidate : libibverbs.get().devices()) {
            if (candidate.name().equals(device)) {
                try (Context context = candidate.open()) {
                    return Optional.of(context.queryPort(port).activeMtu().bytes());
                } catch (VerbsException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }

    private Check portCheck(String device, int port, String state, String physState, String linkLayer, String netdev) {
        Phrase found = phrase("local.port.state", device, port, state, physState, linkLayer);
        if (!state.equals(PortState.ACTIVE.name()) && !state.equals("ACTIVE")) {
            Phrase fix = netdev != null && !netdev.isEmpty() && device.startsWith("rxe")
                    ? phrase("local.port.down.netdev.fix", netdev)
                    : phrase("local.port.down.fix");
            return Check.fail("port", found, fix);
        }
        if (!linkLayer.equals(LinkLayer.ETHERNET.text())) {
            return Check.pass("port", phrase("local.port.infiniband", found));
        }
        return Check.pass("port", found);
    }

    private Optional<Address> netdevCheck(List<Check> checks, String netdev, int mtu, String localIp) {
        String operstate = host.read("/sys/class/net/" + netdev + "/operstate").orElse("missing");
        List<Address> own = addresses().stream().filter(a -> a.netdev().equals(netdev)).toList();
        Object addressText = own.isEmpty() ? phrase("local.netdev.noAddresses")
                : own.stream().map(a -> a.ip() + "/" + a.prefixLength()).collect(Collectors.joining(", "));
        Phrase found = phrase("local.netdev.state", netdev, operstate, mtu, addressText);
        Optional<Address> match = localIp == null ? Optional.empty()
                : own.stream().filter(a -> a.ip().equals(localIp)).findFirst();
        if (!addressesKnown && !operstate.equals("missing")) {
            checks.add(operstate.equals("down") ? Check.fail("netdev", phrase("local.netdev.down", netdev, mtu),
                    phrase("local.netdev.down.fix", netdev)) : Check.pass("netdev", phrase("local.netdev.noAddressList",
                    netdev, operstate, mtu)));
            return Optional.empty();
        }
        if (operstate.equals("missing")) {
            checks.add(Check.fail("netdev", phrase("local.netdev.gone", netdev), phrase("local.netdev.gone.fix")));
        } else if (operstate.equals("down")) {
            checks.add(Check.fail("netdev", found, phrase("local.netdev.down.fix", netdev)));
        } else if (own.stream().noneMatch(Address::ipv4)) {
            checks.add(Check.fail("netdev", phrase("local.netdev.noIpv4", found),
                    phrase("local.netdev.noIpv4.fix", localIp == null ? "<ip>/24" : localIp + "/24", netdev)));
        } else if (localIp != null && match.isEmpty()) {
            checks.add(Check.fail("netdev", phrase("local.netdev.notOwn", found, localIp),
                    phrase("local.netdev.notOwn.fix", own.stream().filter(Address::ipv4).findFirst().orElseThrow().ip(),
                            localIp, netdev)));
        } else {
            checks.add(Check.pass("netdev", found));
        }
        return match;
    }

    private Check mtuCheck(String device, Target target, String netdev, int netdevMtu, int activeMtu,
            boolean activeFromDevice, boolean software) {
        if (activeMtu < 0) {
            return Check.skip("MTU", phrase("local.mtu.unknown", device));
        }
        Mtu path = target.pathMtu();
        Object room = netdevMtu > 0 ? phrase("local.mtu.room", netdev, netdevMtu, netdevMtu - ROCE_HEADER_ROOM) : "";
        Phrase active = activeFromDevice ? phrase("local.mtu.active", activeMtu, room)
                : phrase("local.mtu.active.derived", activeMtu, room);
        if (activeFromDevice && netdevMtu > 0 && activeMtu > netdevMtu - ROCE_HEADER_ROOM) {
            return Check.fail("MTU", phrase("local.mtu.tooLarge", active), phrase("local.mtu.tooLarge.fix",
                    activeMtu + ROCE_HEADER_ROOM, netdev, activeMtu + ROCE_HEADER_ROOM,
                    rxeActiveMtu(netdevMtu).map(Mtu::bytes).map(String::valueOf).orElse("256")));
        }
        if (path != null && path.bytes() > activeMtu) {
            Phrase raise = software ? phrase("local.mtu.aboveActive.software", device)
                    : phrase("local.mtu.aboveActive.netdev", netdev.isEmpty() ? "<netdev>" : netdev);
            return Check.fail("MTU", phrase("local.mtu.aboveActive", path.bytes(), active),
                    phrase("local.mtu.aboveActive.fix", activeMtu, raise));
        }
        return Check.pass("MTU", path == null ? active : phrase("local.mtu.fits", path.bytes(), active));
    }

    /** rxe's active MTU for a netdev MTU: the largest IB MTU that fits after the largest RoCE header. */
    public static Optional<Mtu> rxeActiveMtu(int netdevMtu) {
        int room = netdevMtu - ROCE_HEADER_ROOM;
        Mtu best = null;
        for (Mtu mtu : Mtu.values()) {
            if (mtu.bytes() <= room) {
                best = mtu;
            }
        }
        return Optional.ofNullable(best);
    }

    private List<GidEntry> sysfsGids(String portDir, int port) {
        List<GidEntry> entries = new ArrayList<>();
        for (String name : host.list(portDir + "/gids")) {
            if (!name.matches("\\d+")) {
                continue;
            }
            int index = Integer.parseInt(name);
            Optional<String> text = host.read(portDir + "/gids/" + name);
            Optional<String> type = host.read(portDir + "/gid_attrs/types/" + name);
            if (text.isEmpty() || type.isEmpty()) {
                continue;
            }
            Gid gid;
            try {
                gid = Gid.parse(text.get());
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (gid.isZero()) {
                continue;
            }
            GidType gidType = type.get().contains("v2") ? GidType.ROCE_V2
                    : type.get().contains("RoCE") ? GidType.ROCE_V1 : GidType.IB;
            String ndev = host.read(portDir + "/gid_attrs/ndevs/" + name).orElse("");
            entries.add(new GidEntry(index, port, gid, gidType, ndev,
                    gid.isIpv4Mapped() ? gid.ipv4().getHostAddress() : ""));
        }
        return entries;
    }

    /** The GID chosen for the facts. */
    private record GidChoice(int index, String gid, String type) {
        static final GidChoice NONE = new GidChoice(-1, "", "");
    }

    private GidChoice gidCheck(List<Check> checks, String device, int port, List<GidEntry> gids, String localIp,
            String netdev) {
        if (gids.isEmpty()) {
            checks.add(Check.fail("GID", phrase("local.gid.empty", device, port), netdev.isEmpty()
                    ? phrase("local.gid.empty.noNetdev.fix") : phrase("local.gid.empty.fix", netdev, netdev)));
            return GidChoice.NONE;
        }
        String table = gids.stream().map(LocalChecks::entryText).collect(Collectors.joining(", "));
        if (localIp == null) {
            GidEntry best = GidSelection.best(gids).orElseThrow();
            checks.add(Check.pass("GID", phrase("local.gid.recommended", entryText(best), GidSelection.reason(best),
                    table)));
            return GidChoice.NONE;
        }
        Gid wanted = Gid.ipv4Mapped(org.rdmalab.verbs.spi.DeviceOptions.parseAddress(localIp));
        List<GidEntry> carrying = gids.stream().filter(entry -> entry.gid().equals(wanted)).toList();
        if (carrying.isEmpty()) {
            checks.add(Check.fail("GID", phrase("local.gid.notCarried", device, port, localIp, table), netdev.isEmpty()
                    ? phrase("local.gid.notCarried.noNetdev.fix", localIp)
                    : phrase("local.gid.notCarried.fix", netdev, localIp, netdev)));
            return GidChoice.NONE;
        }
        GidEntry best = GidSelection.best(carrying).orElseThrow();
        Phrase carried = carrying.stream().map(entry -> Phrase.literal(entryText(entry)))
                .reduce((first, next) -> phrase("local.gid.and", first, next)).orElseThrow();
        if (best.type() != GidType.ROCE_V2) {
            checks.add(Check.fail("GID", phrase("local.gid.roceV1", localIp, carried),
                    phrase("local.gid.roceV1.fix", device, best.index())));
            return new GidChoice(best.index(), best.gid().toString(), best.type().text());
        }
        checks.add(Check.pass("GID", phrase("local.gid.carried", localIp, carried, best.index(),
                GidSelection.reason(best), best.index() == 0 ? "" : phrase(gids.get(0).gid().isLinkLocal()
                ? "local.gid.carried.gid0LinkLocal" : "local.gid.carried.gid0Other", gids.get(0).gid()))));
        return new GidChoice(best.index(), best.gid().toString(), best.type().text());
    }

    private static String entryText(GidEntry entry) {
        return "GID[" + entry.index() + "] " + entry.gid() + " " + entry.type().text();
    }

    // ---- netdevs and addresses -----------------------------------------------------------------

    /** One address of a netdev, from {@code ip -o addr show}. */
    record Address(String netdev, String ip, int prefixLength, boolean ipv4) {
    }

    private List<Address> cachedAddresses;
    private boolean addressesKnown;

    List<Address> addresses() {
        if (cachedAddresses != null) {
            return cachedAddresses;
        }
        List<Address> found = new ArrayList<>();
        CommandRunner.Result result = host.commands().run(Host.ADDRESSES);
        addressesKnown = result.ok();
        if (result.ok()) {
            for (String line : result.output().split("\n")) {
                String[] parts = line.trim().split("\\s+");
                if (parts.length < 4 || !(parts[2].equals("inet") || parts[2].equals("inet6"))) {
                    continue;
                }
                String name = parts[1].contains("@") ? parts[1].substring(0, parts[1].indexOf('@')) : parts[1];
                String[] address = parts[3].split("/");
                int prefix = address.length > 1 && address[1].matches("\\d+") ? Integer.parseInt(address[1]) : -1;
                found.add(new Address(name, address[0], prefix, parts[2].equals("inet")));
            }
        }
        cachedAddresses = List.copyOf(found);
        return cachedAddresses;
    }

    private Phrase describeAddresses() {
        List<Address> all = addresses();
        return all.isEmpty() ? phrase("local.netdev.addresses.none") : phrase("local.netdev.addresses",
                all.stream().filter(Address::ipv4).map(Address::ip).collect(Collectors.joining(", ")));
    }

    private int netdevMtu(String netdev) {
        try {
            return Integer.parseInt(host.read("/sys/class/net/" + netdev + "/mtu").orElse("-1"));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    // ---- firewall ------------------------------------------------------------------------------

    private void firewall(List<Check> checks) {
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

    static boolean isIpv4(String text) {
        try {
            return DeviceOptions.parseAddress(text) instanceof Inet4Address;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
