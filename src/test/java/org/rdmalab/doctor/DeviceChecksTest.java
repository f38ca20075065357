package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Ports;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * The device side of doctor's local checks, one line as doctor prints it for each case: the port,
 * the netdev and its addresses as {@code ip -o addr show} lists them, the MTU, the GID table as
 * sysfs lays it out, the facts handed to the peer, and the software device soft0 (opened for real
 * on a free UDP port).
 */
class DeviceChecksTest {

    @TempDir
    Path root;

    FakeHost fake;

    @BeforeEach
    void healthyRxe() {
        fake = new FakeHost(root);
    }

    private LocalChecks.Result run(String ip, String device) {
        return run(ip, device, null, FakeHost.listingRxe0());
    }

    private LocalChecks.Result run(String ip, String device, Mtu mtu, Backends backends) {
        return new LocalChecks(fake.host(), backends).run(new LocalChecks.Target(ip, device, DeviceOptions.defaults(),
                mtu, 1));
    }

    private static Check named(LocalChecks.Result result, String name) {
        return result.checks().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " check:\n" + LocalChecksTest.text(result)));
    }

    private static List<String> names(LocalChecks.Result result) {
        return result.checks().stream().map(Check::name).toList();
    }

    private static String line(Check check) {
        return check.status().symbol() + " " + check.name() + ": " + check.found()
                + (check.failed() ? "\n    fix: " + check.fix() : "");
    }

    private static void addresses(FakeHost fake, String... lines) {
        fake.commands.put("ip -o addr show", new CommandRunner.Result(true, 0, String.join("\n", lines) + "\n"));
    }

    // ---- the port ------------------------------------------------------------------------------

    @Test
    void anInfiniBandPortPassesWithoutNetdevOrMtuChecksAndItsEntriesAreIbGids() {
        String port = "/sys/class/infiniband/rxe0/ports/1";
        fake.write(port + "/link_layer", "InfiniBand");
        fake.write(port + "/gid_attrs/types/0", "IB");
        LocalChecks.Result result = run(null, "rxe0");
        assertEquals("✓ port: rxe0 port 1: ACTIVE (5: LinkUp), link layer InfiniBand (InfiniBand: LIDs route, the GID"
                + " and IP checks below do not apply)", line(named(result, "port")));
        assertFalse(names(result).contains("netdev"), names(result).toString());
        assertFalse(names(result).contains("MTU"), names(result).toString());
        assertTrue(named(result, "GID").found().contains("GID[0] fe80::5054:ff:fe12:3456 IB,"),
                named(result, "GID").found());
    }

    @Test
    void aPortStateWithoutItsNumberIsReadAsItIs() {
        fake.write("/sys/class/infiniband/rxe0/ports/1/state", "ACTIVE");
        assertEquals("✓ port: rxe0 port 1: ACTIVE (5: LinkUp), link layer Ethernet",
                line(named(run("10.0.2.15", "rxe0"), "port")));
    }

    @Test
    void aDownPortThatFollowsNoNetdevIsToldToCheckItsLink() {
        String port = "/sys/class/infiniband/mlx5_0/ports/1";
        fake.write(port + "/state", "1: DOWN");
        fake.write(port + "/phys_state", "2: Polling");
        fake.write(port + "/link_layer", "InfiniBand");
        LocalChecks.Result result = run(null, "mlx5_0");
        assertEquals("✗ port: mlx5_0 port 1: DOWN (2: Polling), link layer InfiniBand\n    fix: bring the link up:"
                + " check the cable and the switch port (ibstat shows the physical state)", line(named(result, "port")));
        assertFalse(result.passed());
        // A down mlx5 port on Ethernet follows no rdma link command either.
        fake.write(port + "/link_layer", "Ethernet");
        fake.write("/sys/class/infiniband/mlx5_0/parent", "eth0");
        assertTrue(named(run(null, "mlx5_0"), "port").fix().startsWith("bring the link up"));
    }

    @Test
    void aDownRxePortWithoutANetdevCannotNameOne() {
        fake.write("/sys/class/infiniband/rxe0/ports/1/state", "1: DOWN");
        fake.delete("/sys/class/infiniband/rxe0/parent");
        fake.delete("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs");
        Check port = named(run("10.0.2.15", "rxe0"), "port");
        assertEquals("bring the link up: check the cable and the switch port (ibstat shows the physical state)",
                port.fix());
    }

    // ---- the netdev ----------------------------------------------------------------------------

    @Test
    void theNetdevIsTakenFromTheGidEntriesWhenTheDeviceNamesNoParent() {
        fake.delete("/sys/class/infiniband/rxe0/parent");
        fake.write("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "");
        LocalChecks.Result result = run("10.0.2.15", "rxe0");
        assertTrue(result.passed(), () -> LocalChecksTest.text(result));
        assertEquals("eth0", result.facts().orElseThrow().netdev());
    }

    @Test
    void aDeviceThatNamesNoNetdev() {
        fake.delete("/sys/class/infiniband/rxe0/parent");
        fake.delete("/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs");
        LocalChecks.Result result = run("10.0.2.16", "rxe0");
        assertEquals("✗ netdev: rxe0 names no netdev\n    fix: recreate it on one: sudo rdma link delete rxe0; sudo"
                + " rdma link add rxe0 type rxe netdev <netdev>", line(named(result, "netdev")));
        assertFalse(names(result).contains("MTU"));
        assertEquals("the address is not on the netdev or its GID went with it: sudo ip addr add 10.0.2.16/24 dev"
                + " <netdev>, or use an address that has a GID", named(result, "GID").fix());
    }

    @Test
    void aNetdevWithoutAnyAddress() {
        addresses(fake, "1: lo    inet 127.0.0.1/8 scope host lo");
        assertEquals("✗ netdev: eth0 is up, MTU 1500, no addresses: no IPv4 address, so RoCE v2 has no IPv4 GID\n"
                + "    fix: sudo ip addr add 10.0.2.15/24 dev eth0", line(named(run("10.0.2.15", "rxe0"), "netdev")));
    }

    @Test
    void aNetdevWhoseOperstateIsGone() {
        fake.delete("/sys/class/net/eth0/operstate");
        assertEquals("✗ netdev: netdev eth0 does not exist\n    fix: recreate the device on an existing netdev: sudo"
                + " rdma link add rxe0 type rxe netdev <netdev>", line(named(run("10.0.2.15", "rxe0"), "netdev")));
    }

    @Test
    void withoutTheAddressListTheNetdevIsJudgedByItsStateAlone() {
        fake.commands.remove("ip -o addr show");
        assertEquals("✓ netdev: eth0 is up, MTU 1500 (addresses unknown: 'ip -o addr show' did not run)",
                line(named(run("10.0.2.15", "rxe0"), "netdev")));
        fake.write("/sys/class/net/eth0/operstate", "down");
        assertEquals("✗ netdev: eth0 is down, MTU 1500\n    fix: sudo ip link set dev eth0 up",
                line(named(run("10.0.2.15", "rxe0"), "netdev")));
        fake.delete("/sys/class/net/eth0/operstate");
        assertEquals("✗ netdev: netdev eth0 does not exist\n    fix: recreate the device on an existing netdev: sudo"
                + " rdma link add rxe0 type rxe netdev <netdev>", line(named(run("10.0.2.15", "rxe0"), "netdev")));
    }

    @Test
    void withoutALocalAddressTheNetdevPassesOnItsIpv4AndTheGidCheckRecommendsTheBestEntry() {
        LocalChecks.Result result = run(null, "rxe0");
        assertTrue(result.passed(), () -> LocalChecksTest.text(result));
        assertEquals("✓ netdev: eth0 is up, MTU 1500, 10.0.2.15/24, fe80::5054:ff:fe12:3456/64",
                line(named(result, "netdev")));
        assertEquals("✓ GID: recommended GID[3] ::ffff:10.0.2.15 RoCE v2: IPv4-mapped (+100): it carries the IPv4"
                + " address 10.0.2.15, so its packets are routed by IP; not link-local (+10); RoCE v2 (+2): UDP port"
                + " 4791, crosses routers; best by perftest's scoring (table: GID[0] fe80::5054:ff:fe12:3456 RoCE v1,"
                + " GID[1] fe80::5054:ff:fe12:3456 RoCE v2, GID[2] ::ffff:10.0.2.15 RoCE v1, GID[3] ::ffff:10.0.2.15"
                + " RoCE v2)", line(named(result, "GID")));
        assertTrue(result.facts().isEmpty());
    }

    /** ip -o addr show as a container's veth shows it (eth0@if5), with a line of exactly four fields. */
    @Test
    void addressLinesAreReadAsIpWritesThem() {
        addresses(fake, "1: lo    inet 127.0.0.1/8 scope host lo", "2: eth0@if5 inet 10.0.2.15/24",
                "2: eth0@if5    inet6 fe80::5054:ff:fe12:3456/64 scope link", "garbage line", "3: eth0 link",
                "2: eth0    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff",
                "4: eth0 inet 10.0.2.99 scope global");
        LocalChecks.Result result = run("10.0.2.15", "rxe0");
        assertEquals("✓ netdev: eth0 is up, MTU 1500, 10.0.2.15/24, fe80::5054:ff:fe12:3456/64, 10.0.2.99/-1",
                line(named(result, "netdev")));
        assertEquals(24, result.facts().orElseThrow().prefixLength());
        addresses(fake, "2: eth0 inet 10.0.2.15/abc scope global");
        assertEquals(-1, run("10.0.2.15", "rxe0").facts().orElseThrow().prefixLength());
    }

    /** soft0 looks for its address among the listed ones more than once; ip runs once. */
    @Test
    void theAddressesAreListedOncePerRun() {
        AtomicInteger runs = new AtomicInteger();
        Host counting = new Host(root, command -> {
            if (String.join(" ", command).equals("ip -o addr show")) {
                runs.incrementAndGet();
            }
            return fake.commands.getOrDefault(String.join(" ", command), CommandRunner.Result.notFound());
        }, Host.LIBRARY_DIRS);
        DeviceOptions options = DeviceOptions.at(DeviceOptions.parseAddress("127.0.0.5"))
                .withUdpPort(Ports.freeUdpPort());
        LocalChecks.Result result = new LocalChecks(counting, softwareAfterEnosys()).run(new LocalChecks.Target(
                "127.0.0.5", "soft0", options, null, 1));
        assertTrue(result.passed(), () -> LocalChecksTest.text(result));
        assertEquals(1, runs.get());
    }

    // ---- the MTU -------------------------------------------------------------------------------

    @Test
    void aNetdevMtuTooSmallForAnyRoceMtuLeavesTheActiveMtuUnknown() {
        fake.write("/sys/class/net/eth0/mtu", "300");
        assertEquals("- MTU: the active MTU of rxe0 is unknown", line(named(run("10.0.2.15", "rxe0"), "MTU")));
    }

    @Test
    void anUnreadableNetdevMtuMeansNoMtuCheck() {
        fake.write("/sys/class/net/eth0/mtu", "n/a");
        LocalChecks.Result result = run("10.0.2.15", "rxe0");
        assertFalse(names(result).contains("MTU"), names(result).toString());
        assertEquals(-1, result.facts().orElseThrow().netdevMtu());
        assertEquals(-1, result.facts().orElseThrow().activeMtu());
    }

    /** libibverbs lists mlx5_0 first (it cannot be opened) and then rxe0, which opens as a soft0 would. */
    private Backends libibverbsOpeningRxe0(DeviceOptions options) throws VerbsException {
        Device soft0 = Backends.installed().find("soft0", options);
        Device rxe0 = new Device() {
            @Override
            public String name() {
                return "rxe0";
            }

            @Override
            public String backend() {
                return "libibverbs";
            }

            @Override
            public String description() {
                return "rxe0";
            }

            @Override
            public Context open() throws VerbsException {
                return soft0.open();
            }
        };
        Device mlx5 = new Device() {
            @Override
            public String name() {
                return "mlx5_0";
            }

            @Override
            public String backend() {
                return "libibverbs";
            }

            @Override
            public String description() {
                return "mlx5_0";
            }

            @Override
            public Context open() throws VerbsException {
                throw new VerbsException("ibv_open_device", Errno.EACCES, "not this one");
            }
        };
        return new Backends(List.of(provider("libibverbs", List.of(mlx5, rxe0))));
    }

    private static VerbsProvider provider(String name, List<Device> devices) {
        return new VerbsProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Device> devices(DeviceOptions options) {
                return devices;
            }
        };
    }

    @Test
    void anActiveMtuTheDeviceReportsIsComparedWithItsNetdevAndNamedAsTheDevicesOwn() throws VerbsException {
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(Ports.freeUdpPort());
        Backends backends = libibverbsOpeningRxe0(options);
        LocalChecks.Result result = new LocalChecks(fake.host(), backends).run(new LocalChecks.Target("10.0.2.15",
                "rxe0", options, Mtu.MTU_512, 1));
        assertEquals("✓ MTU: path MTU 512 fits the active MTU 1024; eth0's MTU 1500 leaves 1420 bytes for RoCE payload",
                line(named(result, "MTU")));
        SideFacts facts = result.facts().orElseThrow();
        assertEquals("libibverbs", facts.backend());
        assertEquals(1024, facts.activeMtu());
        assertEquals(512, facts.pathMtu());
        // The device's own 1024 on a netdev of 1100 is too large, which a derived MTU never is.
        fake.write("/sys/class/net/eth0/mtu", "1100");
        LocalChecks.Result tight = new LocalChecks(fake.host(), backends).run(new LocalChecks.Target("10.0.2.15",
                "rxe0", options, null, 1));
        assertEquals("✗ MTU: active MTU 1024; eth0's MTU 1100 leaves 1020 bytes for RoCE payload: full-size packets"
                + " cannot leave\n    fix: raise the netdev MTU to at least 1104: sudo ip link set dev eth0 mtu 1104 (on"
                + " both machines), or keep --mtu at 512 or less", line(named(tight, "MTU")));
    }

    @Test
    void aPathMtuAboveANativeDevicesActiveMtuPointsAtItsNetdev() {
        assertEquals("✗ MTU: path MTU 2048 is above the active MTU 1024 (derived from the netdev MTU as rxe does);"
                + " eth0's MTU 1500 leaves 1420 bytes for RoCE payload\n    fix: use --mtu 1024 or less, or raise the"
                + " netdev MTU on both machines (sudo ip link set dev eth0 mtu 9000)",
                line(named(run("10.0.2.15", "rxe0", Mtu.MTU_2048, FakeHost.listingRxe0()), "MTU")));
    }

    // ---- the GID table -------------------------------------------------------------------------

    @Test
    void sysfsEntriesThatAreNotGidsAreLeftOut() {
        String port = "/sys/class/infiniband/rxe0/ports/1";
        fake.write(port + "/gids/README", "not a gid");
        fake.write(port + "/gid_attrs/types/4", "RoCE v2"); // gids/4 is all zeros: an empty slot
        fake.write(port + "/gids/5", "0000:0000:0000:0000:0000:ffff:0a00:0263"); // no type: being written
        fake.write(port + "/gids/6", "zzzz");
        fake.write(port + "/gid_attrs/types/6", "RoCE v2");
        Check gid = named(run("10.0.2.16", "rxe0"), "GID");
        assertEquals("no GID of rxe0 port 1 carries 10.0.2.16 (table: GID[0] fe80::5054:ff:fe12:3456 RoCE v1, GID[1]"
                + " fe80::5054:ff:fe12:3456 RoCE v2, GID[2] ::ffff:10.0.2.15 RoCE v1, GID[3] ::ffff:10.0.2.15 RoCE v2)",
                gid.found());
    }

    @Test
    void anEmptyGidTableSaysToGiveTheNetdevAnAddress() {
        fake.delete("/sys/class/infiniband/rxe0/ports/1/gids");
        LocalChecks.Result result = run("10.0.2.15", "rxe0");
        assertEquals("✗ GID: rxe0 port 1 has an empty GID table\n    fix: give eth0 an address: sudo ip addr add"
                + " <ip>/24 dev eth0 (the GIDs follow the addresses)", line(named(result, "GID")));
        assertEquals(-1, result.facts().orElseThrow().gidIndex());
        assertEquals("", result.facts().orElseThrow().gid());
        fake.delete("/sys/class/infiniband/rxe0/parent");
        fake.delete("/sys/class/infiniband/rxe0/ports/1/gid_attrs");
        assertEquals("give its netdev an address: sudo ip addr add <ip>/24 dev <netdev> (the GIDs follow the"
                + " addresses)", named(run("10.0.2.15", "rxe0"), "GID").fix());
    }

    @Test
    void gidZeroIsNamedOnlyWhenItIsNotTheRecommendedOne() {
        fake.gid(0, "0000:0000:0000:0000:0000:ffff:0a00:0263", "RoCE v2");
        assertTrue(named(run("10.0.2.15", "rxe0"), "GID").found().endsWith("; GID[0] is ::ffff:10.0.2.99, which is"
                + " another address"), () -> named(run("10.0.2.15", "rxe0"), "GID").found());
        fake.gid(0, "0000:0000:0000:0000:0000:ffff:0a00:020f", "RoCE v2");
        LocalChecks.Result first = run("10.0.2.15", "rxe0");
        assertTrue(named(first, "GID").found().endsWith("recommended GID[0]: IPv4-mapped (+100): it carries the IPv4"
                + " address 10.0.2.15, so its packets are routed by IP; not link-local (+10); RoCE v2 (+2): UDP port"
                + " 4791, crosses routers; best by perftest's scoring"), named(first, "GID").found());
        assertEquals(0, first.facts().orElseThrow().gidIndex());
    }

    // ---- which device, and the facts -----------------------------------------------------------

    @Test
    void aMissingDeviceOnAMachineWithoutAnySaysHowToCreateIt() {
        fake.delete("/sys/class/infiniband");
        assertEquals("✗ device: no rxe9 under /sys/class/infiniband (there: none)\n    fix: create it: sudo rdma link"
                + " add rxe9 type rxe netdev <netdev>, or use soft0", line(named(run("10.0.2.15", "rxe9"), "device")));
    }

    @Test
    void everyDeviceIsCheckedWhenNoneIsNamedButNoFactsAreHandedOn() {
        fake.write("/sys/class/infiniband/rxe1/ports/1/state", "1: DOWN");
        LocalChecks.Result result = run("10.0.2.15", null);
        assertEquals(2, names(result).stream().filter(n -> n.equals("port")).count(), names(result).toString());
        assertTrue(result.facts().isEmpty());
        assertTrue(names(result).contains("firewall"));
    }

    @Test
    void theFirewallIsCheckedWhenThereIsAnAddressOrADevice() {
        assertTrue(names(run(null, null)).contains("firewall"), names(run(null, null)).toString());
        fake.delete("/sys/class/infiniband");
        assertFalse(names(run(null, null)).contains("firewall"), names(run(null, null)).toString());
        assertTrue(names(run("10.0.2.15", null)).contains("firewall"));
    }

    @Test
    void aNativeDevicesFactsCarryThePathMtuAsked() {
        SideFacts facts = run("10.0.2.15", "rxe0", Mtu.MTU_512, FakeHost.listingRxe0()).facts().orElseThrow();
        assertEquals(new SideFacts("rxe0", "sysfs", "10.0.2.15", "eth0", 24, 1500, 1024, 512, "Ethernet", "ACTIVE", 3,
                "::ffff:10.0.2.15", "RoCE v2"), facts);
    }

    @Test
    void anAddressIsIpv4OnlyWhenItParsesAsOne() {
        assertTrue(LocalChecks.isIpv4("10.0.2.15"));
        assertFalse(LocalChecks.isIpv4("fe80::1"));
        assertFalse(LocalChecks.isIpv4("ten"));
    }

    // ---- the software device -------------------------------------------------------------------

    /** The installed software backend after a libibverbs backend that failed with ENOSYS. */
    private static Backends softwareAfterEnosys() {
        List<VerbsProvider> providers = new ArrayList<>(FakeHost.enosys().providers());
        Backends.installed().providers().stream().filter(p -> p.name().equals("software")).forEach(providers::add);
        return new Backends(providers);
    }

    private LocalChecks.Result soft0(DeviceOptions options, Mtu pathMtu) {
        return new LocalChecks(fake.host(), softwareAfterEnosys()).run(new LocalChecks.Target(
                options.address().getHostAddress(), "soft0", options, pathMtu, 1));
    }

    @Test
    void soft0OnALoopbackAddressIsFoundOnLoAndItsFactsAreHandedOn() {
        DeviceOptions options = DeviceOptions.at(DeviceOptions.parseAddress("127.0.0.5"))
                .withUdpPort(Ports.freeUdpPort());
        LocalChecks.Result result = soft0(options, Mtu.MTU_512);
        assertTrue(result.passed(), () -> LocalChecksTest.text(result));
        assertEquals(List.of("libibverbs", "device", "port", "netdev", "MTU", "GID", "firewall"), names(result));
        assertEquals("- libibverbs: soft0 is RDMA Lab's own software device and needs no libibverbs, kernel modules,"
                + " device nodes or locked memory (libibverbs: ENOSYS)", line(named(result, "libibverbs")));
        assertEquals("✓ netdev: lo holds 127.0.0.5/8, state unknown, MTU 65536", line(named(result, "netdev")));
        SideFacts facts = result.facts().orElseThrow();
        assertEquals("soft0", facts.device());
        assertEquals("127.0.0.5", facts.ip());
        assertEquals("lo", facts.netdev());
        assertEquals(8, facts.prefixLength());
        assertEquals(65536, facts.netdevMtu());
        assertEquals(1024, facts.activeMtu());
        assertEquals(512, facts.pathMtu());
        assertEquals("Ethernet", facts.linkLayer());
        assertEquals("ACTIVE", facts.portState());
    }

    @Test
    void soft0OnAnAddressNoNetdevHoldsSaysWhichAddressesThereAre() {
        addresses(fake, "2: eth0    inet 10.0.2.15/24 brd 10.0.2.255 scope global eth0",
                "2: eth0    inet6 fe80::5054:ff:fe12:3456/64 scope link");
        DeviceOptions options = DeviceOptions.at(DeviceOptions.parseAddress("127.0.0.5"))
                .withUdpPort(Ports.freeUdpPort());
        LocalChecks.Result result = soft0(options, null);
        assertEquals("✗ netdev: 127.0.0.5 is on no network interface of this machine (it has 10.0.2.15)\n    fix: use"
                + " one of this machine's addresses as <local_ip>", line(named(result, "netdev")));
        assertEquals("✓ MTU: active MTU 1024", line(named(result, "MTU")));
        assertEquals(-1, result.facts().orElseThrow().pathMtu());
        assertEquals(-1, result.facts().orElseThrow().prefixLength());
        addresses(fake);
        assertEquals("127.0.0.5 is on no network interface of this machine (ip -o addr show listed none)",
                named(soft0(options, null), "netdev").found());
    }

    /** A software backend whose soft0 fails to open with {@code errno}. */
    private static Backends softwareFailing(Errno errno) {
        Device soft0 = new Device() {
            @Override
            public String name() {
                return "soft0";
            }

            @Override
            public String backend() {
                return "software";
            }

            @Override
            public String description() {
                return "soft0";
            }

            @Override
            public Context open() throws VerbsException {
                throw new VerbsException("ibv_open_device", errno, "cannot bind UDP");
            }
        };
        return new Backends(List.of(provider("software", List.of(soft0))));
    }

    @Test
    void soft0ThatCannotOpenBecauseItsPortIsHeldSaysWhoMayHoldIt() {
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(4791);
        LocalChecks.Result result = new LocalChecks(fake.host(), softwareFailing(Errno.EADDRINUSE)).run(
                new LocalChecks.Target("127.0.0.1", "soft0", options, null, 1));
        assertEquals("✗ device: soft0 did not open: ibv_open_device failed: EADDRINUSE (98, Address already in use):"
                + " cannot bind UDP\n    fix: another program holds UDP 4791 on 127.0.0.1 (a second soft0, or a kernel"
                + " rxe device): stop it, or use another --udp-port on both sides",
                line(named(result, "device")));
        assertTrue(result.facts().isEmpty());
        assertEquals(List.of("libibverbs", "device", "firewall"), names(result));
    }

    @Test
    void soft0ThatCannotOpenForAnotherReasonSaysToGiveAnAddressOfThisMachine() {
        LocalChecks.Result result = new LocalChecks(fake.host(), softwareFailing(Errno.EADDRNOTAVAIL)).run(
                new LocalChecks.Target("192.0.2.1", "soft0", DeviceOptions.defaults(), null, 1));
        assertEquals("give an address of this machine as <local_ip>", named(result, "device").fix());
    }

    @Test
    void aKernelDeviceNamedLikeNoSoftwareDeviceIsCheckedAsAKernelDevice() {
        List<VerbsProvider> providers = new ArrayList<>();
        Backends.installed().providers().stream().filter(p -> p.name().equals("software")).forEach(providers::add);
        providers.addAll(FakeHost.listingRxe0().providers());
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null, new Backends(providers));
        assertTrue(result.passed(), () -> LocalChecksTest.text(result));
        assertEquals("✓ kernel RDMA: libibverbs lists rxe0", line(named(result, "kernel RDMA")));
        assertEquals("sysfs", result.facts().orElseThrow().backend());
    }

    /** Only lo's own network stands for an address soft0 has and no netdev lists (127.0.0.0/8). */
    @Test
    void soft0OnAnotherNetdevsNetworkIsNotOnThatNetdev() {
        addresses(fake, "1: lo    inet 127.0.0.1/8 scope host lo", "1: lo    inet6 ::1/128 scope host",
                "2: eth0    inet 10.0.2.15/24 brd 10.0.2.255 scope global eth0");
        DeviceOptions options = DeviceOptions.at(DeviceOptions.parseAddress("10.0.2.77"))
                .withUdpPort(Ports.freeUdpPort());
        assertEquals("✗ netdev: 10.0.2.77 is on no network interface of this machine (it has 127.0.0.1, 10.0.2.15)\n"
                + "    fix: use one of this machine's addresses as <local_ip>", line(named(soft0(options, null), "netdev")));
    }

    @Test
    void withoutALibibverbsBackendAKernelDeviceIsReadFromSysfsAlone() {
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null, new Backends(List.of()));
        assertEquals("✓ MTU: active MTU 1024 (derived from the netdev MTU as rxe does); eth0's MTU 1500 leaves 1420"
                + " bytes for RoCE payload", line(named(result, "MTU")));
        assertEquals("sysfs", result.facts().orElseThrow().backend());
        assertEquals(1024, result.facts().orElseThrow().activeMtu());
    }
}
