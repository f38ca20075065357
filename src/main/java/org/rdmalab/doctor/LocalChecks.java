package org.rdmalab.doctor;

import java.net.Inet4Address;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
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
 * the firewall. The machine around the devices (libibverbs, modules, providers, device nodes,
 * memlock, firewall) is {@link HostChecks}'; the devices, ports, netdevs and GIDs are checked here.
 * Files come from the {@link Host}'s root and tools from its runner, so each failure can be shown
 * with a fake tree; devices come from the verbs backends.
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
    private final HostChecks hostChecks;

    /** Checks {@code host} with the devices of {@code backends}. */
    public LocalChecks(Host host, Backends backends) {
        this.host = host;
        this.backends = backends;
        this.hostChecks = new HostChecks(host);
    }

    /** Runs the checks for {@code target}. */
    public Result run(Target target) {
        List<Check> checks = new ArrayList<>();
        List<Backends.Listing> listings = backends.list(target.options());
        Optional<Device> software = findIn(listings, "software", target.device());
        if (software.isPresent()) {
            Optional<SideFacts> facts = softwareDevice(checks, software.get(), target, listings);
            hostChecks.firewall(checks);
            return new Result(List.copyOf(checks), facts);
        }
        Optional<Backends.Listing> libibverbs = listings.stream()
                .filter(listing -> listing.provider().name().equals("libibverbs")).findFirst();
        hostChecks.libibverbsLibrary(checks);
        hostChecks.kernel(checks, libibverbs, target);
        List<String> devices = target.device() != null ? List.of(target.device()) : host.list("/sys/class/infiniband");
        hostChecks.modules(checks, devices);
        for (String device : devices) {
            hostChecks.provider(checks, device);
        }
        hostChecks.deviceNodes(checks, devices);
        hostChecks.memlock(checks);
        Optional<SideFacts> facts = Optional.empty();
        for (String device : devices) {
            Optional<SideFacts> deviceFacts = nativeDevice(checks, device, libibverbs, target);
            if (target.device() != null) {
                facts = deviceFacts;
            }
        }
        if (target.localIp() != null || !devices.isEmpty()) {
            hostChecks.firewall(checks);
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

    /** The sentence {@code key} of {@link Check#LOCAL} with {@code args}. */
    private static Phrase phrase(String key, Object... args) {
        return Phrase.from(Check.LOCAL, key, args);
    }

    static boolean isIpv4(String text) {
        try {
            return DeviceOptions.parseAddress(text) instanceof Inet4Address;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
