package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.verbs.Mtu;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The local checks on fake sysfs trees: a healthy rxe0 passes, and each cause the issue lists is
 * found and explained with the words below (so a text cannot drift from its check).
 */
class LocalChecksTest {

    @TempDir
    Path root;

    FakeHost fake;

    @BeforeEach
    void healthyRxe() {
        fake = new FakeHost(root);
    }

    private LocalChecks.Result run(String ip, String device, Mtu mtu) {
        return run(ip, device, mtu, FakeHost.listingRxe0());
    }

    private LocalChecks.Result run(String ip, String device, Mtu mtu, Backends backends) {
        DeviceOptions options = DeviceOptions.defaults();
        return new LocalChecks(fake.host(), backends).run(new LocalChecks.Target(ip, device, options, mtu, 1));
    }

    private static Check only(LocalChecks.Result result, String name) {
        List<Check> failed = result.checks().stream().filter(Check::failed).toList();
        assertEquals(1, failed.size(), () -> "exactly one failure expected:\n" + text(result));
        assertEquals(name, failed.get(0).name(), () -> text(result));
        return failed.get(0);
    }

    static String text(LocalChecks.Result result) {
        return result.checks().stream().map(c -> c.status().symbol() + " " + c.name() + ": " + c.found()
                + (c.failed() ? "\n    fix: " + c.fix() : "")).collect(Collectors.joining("\n"));
    }

    private static void assertCheck(Check check, String found, String fix) {
        assertEquals(found, check.found());
        assertEquals(fix, check.fix());
    }

    @Test
    void aHealthyRxeDevicePassesAndRecommendsTheV2EntryOfTheAddress() {
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null);
        assertTrue(result.passed(), () -> text(result));
        assertEquals(List.of("libibverbs", "kernel RDMA", "kernel modules", "provider rxe0", "device node rxe0",
                "memlock", "port", "netdev", "MTU", "GID", "firewall"),
                result.checks().stream().map(Check::name).toList());
        assertEquals("found /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so, named in /etc/libibverbs.d/rxe.driver",
                result.checks().get(3).found());
        assertEquals("10.0.2.15 is GID[2] ::ffff:10.0.2.15 RoCE v1 and GID[3] ::ffff:10.0.2.15 RoCE v2; recommended"
                + " GID[3]: IPv4-mapped (+100): it carries the IPv4 address 10.0.2.15, so its packets are routed by IP;"
                + " not link-local (+10); RoCE v2 (+2): UDP port 4791, crosses routers; best by perftest's scoring; GID[0]"
                + " is fe80::5054:ff:fe12:3456, which is link-local and routes nowhere", result.checks().get(9).found());
        assertEquals("active MTU 1024 (derived from the netdev MTU as rxe does); eth0's MTU 1500 leaves 1420 bytes"
                + " for RoCE payload", result.checks().get(8).found());
        assertEquals("no rule drops UDP 4791 (iptables-save: not installed)", result.checks().get(10).found());
        SideFacts facts = result.facts().orElseThrow();
        assertEquals(new SideFacts("rxe0", "sysfs", "10.0.2.15", "eth0", 24, 1500, 1024, -1, "Ethernet", "ACTIVE", 3,
                "::ffff:10.0.2.15", "RoCE v2"), facts);
    }

    @Test
    void enosysIsExplainedAndTheSoftwareDeviceOffered() {
        assertCheck(only(run("10.0.2.15", "rxe0", null, FakeHost.enosys()), "kernel RDMA"),
                "ibv_get_device_list answers ENOSYS: this kernel offers no RDMA to programs (no"
                        + " /sys/class/infiniband_verbs), so the libibverbs backend has no devices",
                "on a kernel with RDMA: modprobe ib_uverbs rdma_rxe and rdma link add rxe0 type rxe netdev <netdev>;"
                        + " on this one use the software device: doctor 10.0.2.15 soft0");
    }

    @Test
    void aMissingProviderLibrary() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "provider rxe0"),
                "no librxe-rdmav*.so in any libibverbs folder or on the library path, so libibverbs skips rxe0"
                        + " (it warns: couldn't load driver 'librxe-rdmav*.so')",
                "install the providers: apt-get install ibverbs-providers (Debian, Ubuntu) or dnf install libibverbs"
                        + " (Fedora, RHEL)");
    }

    @Test
    void aProviderOnTheLibraryPathIsFoundWhereLibibverbsLooksNext() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
        fake.write("/opt/rdma/lib/librxe-rdmav34.so", "");
        List<String> dirs = new java.util.ArrayList<>(List.of("/opt/rdma/lib"));
        dirs.addAll(org.rdmalab.doctor.Host.LIBRARY_DIRS);
        LocalChecks.Result result = new LocalChecks(fake.host(dirs), FakeHost.listingRxe0()).run(
                new LocalChecks.Target("10.0.2.15", "rxe0", DeviceOptions.defaults(), null, 1));
        assertTrue(result.passed(), () -> text(result));
        assertEquals("found /opt/rdma/lib/librxe-rdmav34.so, named in /etc/libibverbs.d/rxe.driver",
                result.checks().get(3).found());
    }

    @Test
    void aProviderTheConfigFolderDoesNotName() {
        fake.delete("/etc/libibverbs.d/rxe.driver");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "provider rxe0"),
                "found /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so, but no file in /etc/libibverbs.d names"
                        + " it (a line 'driver rxe'), and libibverbs loads only the providers named there, so it"
                        + " skips rxe0",
                "reinstall the providers (apt-get install --reinstall ibverbs-providers puts rxe.driver there), or:"
                        + " echo 'driver rxe' | sudo tee /etc/libibverbs.d/rxe.driver");
    }

    @Test
    void aKernelDeviceLibibverbsDoesNotListPointsAtItsProvider() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null, FakeHost.listingNone());
        Check kernel = result.checks().stream().filter(c -> c.name().equals("kernel RDMA")).findFirst().orElseThrow();
        assertCheck(kernel, "the kernel has rxe0 (/sys/class/infiniband), but libibverbs lists no devices: it loaded"
                + " no provider for it", "see the provider check below: the provider library and its"
                + " /etc/libibverbs.d entry");
        assertTrue(result.checks().stream().anyMatch(c -> c.name().equals("provider rxe0") && c.failed()),
                () -> text(result));
    }

    @Test
    void aMissingLibibverbs() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        Check check = only(run("10.0.2.15", "rxe0", null), "libibverbs");
        assertTrue(check.found().startsWith("libibverbs.so.1 is in none of /usr/lib/x86_64-linux-gnu, "),
                check.found());
        assertEquals("install it: apt-get install libibverbs1 ibverbs-providers (Debian, Ubuntu) or dnf install"
                + " libibverbs (Fedora, RHEL)", check.fix());
    }

    @Test
    void aKernelModuleNotLoaded() {
        fake.delete("/sys/module/rdma_rxe");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "kernel modules"),
                "not loaded: rdma_rxe (neither in /proc/modules nor under /sys/module)",
                "sudo modprobe rdma_rxe; then sudo rdma link add rxe0 type rxe netdev <netdev>");
    }

    @Test
    void aModuleListedInProcModulesIsLoaded() {
        fake.delete("/sys/module/rdma_rxe");
        fake.write("/proc/modules", "rdma_rxe 143360 0 - Live 0x0000000000000000\nip6_udp_tunnel 16384 1 rdma_rxe");
        assertTrue(run("10.0.2.15", "rxe0", null).passed());
    }

    @Test
    void aDeviceNodeTheUserCannotOpen() {
        fake.mode("/dev/infiniband/uverbs0", "rw-------");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "device node rxe0"),
                "/dev/infiniband/uverbs0 (mode 600, owner " + owner("/dev/infiniband/uverbs0") + ", group "
                        + group("/dev/infiniband/uverbs0") + ") is not readable and writable by uid 54321",
                "add the user to group " + group("/dev/infiniband/uverbs0") + " (sudo usermod -aG "
                        + group("/dev/infiniband/uverbs0") + " <user>, then log in again), or sudo chmod 666"
                        + " /dev/infiniband/uverbs0 to try");
    }

    @Test
    void aDeviceNodeOfTheUsersGroupIsEnough() {
        fake.mode("/dev/infiniband/uverbs0", "rw-rw----");
        fake.user(FakeHost.UID, group("/dev/infiniband/uverbs0"));
        assertTrue(run("10.0.2.15", "rxe0", null).passed());
    }

    @Test
    void noUverbsForTheDevice() {
        fake.delete("/sys/class/infiniband_verbs");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "device node rxe0"),
                "no /sys/class/infiniband_verbs/uverbs* belongs to rxe0, so programs cannot reach it",
                "sudo modprobe ib_uverbs");
    }

    @Test
    void aSmallMemlockLimitForAUser() {
        fake.memlock("65536");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "memlock"),
                "ulimit -l is 64 KiB for uid 54321, below the 72 KiB (the lab's 64 KiB bulk buffer and the probe's"
                        + " 8 KiB) the lab registers: ibv_reg_mr fails with ENOMEM",
                "raise it: add '<user> - memlock unlimited' to /etc/security/limits.conf and log in again (or"
                        + " ulimit -l unlimited in a root shell)");
    }

    @Test
    void rootIgnoresTheMemlockLimit() {
        fake.memlock("65536");
        fake.user(0, 0);
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null);
        assertTrue(result.passed(), () -> text(result));
        assertTrue(text(result).contains("✓ memlock: ulimit -l is 64 KiB, but root pins memory without limit"
                + " (CAP_IPC_LOCK)"), () -> text(result));
    }

    @Test
    void aPortThatIsDown() {
        fake.write("/sys/class/infiniband/rxe0/ports/1/state", "1: DOWN");
        fake.write("/sys/class/infiniband/rxe0/ports/1/phys_state", "3: Disabled");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "port"), "rxe0 port 1: DOWN (3: Disabled), link layer Ethernet",
                "the port follows its netdev: sudo ip link set dev eth0 up");
    }

    @Test
    void aNetdevThatIsDown() {
        fake.write("/sys/class/net/eth0/operstate", "down");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "netdev"),
                "eth0 is down, MTU 1500, 10.0.2.15/24, fe80::5054:ff:fe12:3456/64", "sudo ip link set dev eth0 up");
    }

    @Test
    void aNetdevWithoutIpv4() {
        fake.commands.put("ip -o addr show", new CommandRunner.Result(true, 0,
                "2: eth0    inet6 fe80::5054:ff:fe12:3456/64 scope link \\       valid_lft forever\n"));
        LocalChecks.Result result = run(null, "rxe0", null);
        assertCheck(only(result, "netdev"), "eth0 is up, MTU 1500, fe80::5054:ff:fe12:3456/64: no IPv4 address, so"
                + " RoCE v2 has no IPv4 GID", "sudo ip addr add <ip>/24 dev eth0");
    }

    @Test
    void aNetdevMtuBelowThePathMtu() {
        fake.write("/sys/class/net/eth0/mtu", "1000");
        assertCheck(only(run("10.0.2.15", "rxe0", Mtu.MTU_1024), "MTU"),
                "path MTU 1024 is above the active MTU 512 (derived from the netdev MTU as rxe does); eth0's MTU 1000"
                        + " leaves 920 bytes for RoCE payload",
                "use --mtu 512 or less, or raise the netdev MTU on both machines (sudo ip link set dev eth0 mtu 9000)");
    }

    @Test
    void anActiveMtuTheNetdevCannotCarry() {
        // soft0 on a jumbo link (active MTU 4096) whose address sits on a 1500-byte netdev.
        fake.commands.put("ip -o addr show", new CommandRunner.Result(true, 0,
                "2: eth0    inet 127.0.0.1/8 scope global eth0\\       valid_lft forever\n"));
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(org.rdmalab.testing.Ports.freeUdpPort())
                .withLinkMtu(9000);
        LocalChecks.Result result = new LocalChecks(fake.host(), Backends.installed())
                .run(new LocalChecks.Target("127.0.0.1", "soft0", options, null, 1));
        assertCheck(only(result, "MTU"), "active MTU 4096; eth0's MTU 1500 leaves 1420 bytes for RoCE payload:"
                + " full-size packets cannot leave", "raise the netdev MTU to at least 4176: sudo ip link set dev eth0"
                + " mtu 4176 (on both machines), or keep --mtu at 1024 or less");
    }

    /** soft0 with active MTU 4096 (a jumbo link) on a netdev of {@code netdevMtu}: the MTU check. */
    private Check softMtuCheck(int netdevMtu) {
        fake.commands.put("ip -o addr show", new CommandRunner.Result(true, 0,
                "2: eth0    inet 127.0.0.1/8 scope global eth0\\       valid_lft forever\n"));
        fake.write("/sys/class/net/eth0/mtu", String.valueOf(netdevMtu));
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(org.rdmalab.testing.Ports.freeUdpPort())
                .withLinkMtu(9000);
        LocalChecks.Result result = new LocalChecks(fake.host(), Backends.installed())
                .run(new LocalChecks.Target("127.0.0.1", "soft0", options, null, 1));
        return result.checks().stream().filter(c -> c.name().equals("MTU")).findFirst().orElseThrow();
    }

    /** The boundary of the check that compares a device's own active MTU with its netdev's, from both sides. */
    @Test
    void anActiveMtuThatExactlyFitsTheNetdevPassesAndOneByteLessFails() {
        Check fits = softMtuCheck(4096 + LocalChecks.ROCE_HEADER_ROOM);
        assertEquals(Check.Status.PASS, fits.status(), fits.found());
        assertEquals("active MTU 4096; eth0's MTU 4176 leaves 4096 bytes for RoCE payload", fits.found());

        Check tight = softMtuCheck(4096 + LocalChecks.ROCE_HEADER_ROOM - 1);
        assertTrue(tight.failed(), tight.found());
        assertCheck(tight, "active MTU 4096; eth0's MTU 4175 leaves 4095 bytes for RoCE payload: full-size packets"
                + " cannot leave", "raise the netdev MTU to at least 4176: sudo ip link set dev eth0 mtu 4176 (on both"
                + " machines), or keep --mtu at 2048 or less");
    }

    /** The path MTU against the active MTU: equal fits, the next size up does not. */
    @Test
    void aPathMtuEqualToTheActiveMtuFits() {
        fake.write("/sys/class/net/eth0/mtu", "1000"); // active MTU 512, derived as rxe does
        Check equal = run("10.0.2.15", "rxe0", Mtu.MTU_512).checks().stream()
                .filter(c -> c.name().equals("MTU")).findFirst().orElseThrow();
        assertEquals(Check.Status.PASS, equal.status(), equal.found());
        assertEquals("path MTU 512 fits the active MTU 512 (derived from the netdev MTU as rxe does); eth0's MTU"
                + " 1000 leaves 920 bytes for RoCE payload", equal.found());
        Check below = run("10.0.2.15", "rxe0", Mtu.MTU_256).checks().stream()
                .filter(c -> c.name().equals("MTU")).findFirst().orElseThrow();
        assertEquals(Check.Status.PASS, below.status(), below.found());
    }

    @Test
    void theSmallestRxeActiveMtuNeedsRoomForItsHeaders() {
        assertEquals(Mtu.MTU_256, LocalChecks.rxeActiveMtu(256 + LocalChecks.ROCE_HEADER_ROOM).orElseThrow());
        assertTrue(LocalChecks.rxeActiveMtu(256 + LocalChecks.ROCE_HEADER_ROOM - 1).isEmpty());
        assertEquals(Mtu.MTU_512, LocalChecks.rxeActiveMtu(512 + LocalChecks.ROCE_HEADER_ROOM).orElseThrow());
        assertEquals(Mtu.MTU_256, LocalChecks.rxeActiveMtu(512 + LocalChecks.ROCE_HEADER_ROOM - 1).orElseThrow());
        assertEquals(Mtu.MTU_1024, LocalChecks.rxeActiveMtu(1024 + LocalChecks.ROCE_HEADER_ROOM).orElseThrow());
        assertEquals(Mtu.MTU_512, LocalChecks.rxeActiveMtu(1024 + LocalChecks.ROCE_HEADER_ROOM - 1).orElseThrow());
    }

    @Test
    void theRxeActiveMtuFollowsTheNetdevMtu() {
        assertEquals(Mtu.MTU_1024, LocalChecks.rxeActiveMtu(1500).orElseThrow());
        assertEquals(Mtu.MTU_4096, LocalChecks.rxeActiveMtu(9000).orElseThrow());
        assertEquals(Mtu.MTU_2048, LocalChecks.rxeActiveMtu(4000).orElseThrow());
        assertEquals(Mtu.MTU_4096, LocalChecks.rxeActiveMtu(4096 + 80).orElseThrow());
        assertEquals(Mtu.MTU_2048, LocalChecks.rxeActiveMtu(4096 + 79).orElseThrow());
        assertTrue(LocalChecks.rxeActiveMtu(300).isEmpty());
    }

    @Test
    void anAddressOnlyInARoceV1Entry() {
        fake.delete("/sys/class/infiniband/rxe0/ports/1/gids/3");
        assertCheck(only(run("10.0.2.15", "rxe0", null), "GID"),
                "10.0.2.15 is only in GID[2] ::ffff:10.0.2.15 RoCE v1: RoCE v1 has no IP header and does not cross a"
                        + " router, and a RoCE v2 peer cannot talk to it",
                "enable RoCE v2 on rxe0 (rxe makes a v2 entry for every address: recreate it with rdma link), or use"
                        + " RoCE v1 on both sides with --gid-index 2");
    }

    @Test
    void anAddressThatVanishedFromTheNetdevAndItsGid() {
        LocalChecks.Result result = run("10.0.2.16", "rxe0", null);
        List<Check> failed = result.checks().stream().filter(Check::failed).toList();
        assertEquals(List.of("netdev", "GID"), failed.stream().map(Check::name).toList(), () -> text(result));
        assertCheck(failed.get(0), "eth0 is up, MTU 1500, 10.0.2.15/24, fe80::5054:ff:fe12:3456/64: 10.0.2.16 is not"
                + " one of its addresses", "use 10.0.2.15 as <local_ip>, or sudo ip addr add 10.0.2.16/24 dev eth0");
        assertCheck(failed.get(1), "no GID of rxe0 port 1 carries 10.0.2.16 (table: GID[0] fe80::5054:ff:fe12:3456"
                + " RoCE v1, GID[1] fe80::5054:ff:fe12:3456 RoCE v2, GID[2] ::ffff:10.0.2.15 RoCE v1, GID[3]"
                + " ::ffff:10.0.2.15 RoCE v2)", "the address is not on eth0 or its GID went with it: sudo ip addr add"
                + " 10.0.2.16/24 dev eth0, or use an address that has a GID");
        assertEquals(-1, result.facts().orElseThrow().gidIndex());
    }

    @Test
    void aFirewallRuleDroppingUdp4791() {
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, 0, "table inet filter {\n chain input {\n"
                + "  type filter hook input priority filter; policy accept;\n  udp dport 4791 drop\n }\n}\n"));
        assertCheck(only(run("10.0.2.15", "rxe0", null), "firewall"),
                "a rule drops RoCE v2 (UDP 4791): nft: udp dport 4791 drop",
                "delete that rule (nft -a list ruleset shows its handle; iptables -D ...), or allow it first: nft"
                        + " insert rule inet filter input udp dport 4791 accept, or iptables -I INPUT -p udp --dport"
                        + " 4791 -j ACCEPT (on both machines)");
    }

    @Test
    void anIptablesRuleRejectingUdp4791() {
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 0, "*filter\n:INPUT ACCEPT [0:0]\n"
                + "-A INPUT -p udp -m udp --dport 4791 -j REJECT --reject-with icmp-port-unreachable\nCOMMIT\n"));
        Check check = only(run("10.0.2.15", "rxe0", null), "firewall");
        assertEquals("a rule drops RoCE v2 (UDP 4791): iptables-save: -A INPUT -p udp -m udp --dport 4791 -j REJECT"
                + " --reject-with icmp-port-unreachable", check.found());
    }

    @Test
    void aDropPolicyWithoutAnAcceptForUdp4791() {
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, 0, "table inet filter {\n chain input {\n"
                + "  type filter hook input priority filter; policy drop;\n  tcp dport 22 accept\n }\n}\n"));
        assertCheck(only(run("10.0.2.15", "rxe0", null), "firewall"),
                "the input policy drops what no rule accepts, and no rule accepts UDP 4791 (nft: type filter hook"
                        + " input priority filter; policy drop;)",
                "nft insert rule inet filter input udp dport 4791 accept, or iptables -I INPUT -p udp --dport 4791 -j"
                        + " ACCEPT (on both machines)");
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, 0, "table inet filter {\n chain input {\n"
                + "  type filter hook input priority filter; policy drop;\n  udp dport 4791 accept\n }\n}\n"));
        assertTrue(run("10.0.2.15", "rxe0", null).passed());
    }

    @Test
    void unreadableRulesAreSkippedNotPassed() {
        fake.commands.remove("nft list ruleset");
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 4, "iptables-save v1.8.9: Permission denied"
                + " (you must be root)\n"));
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null);
        Check firewall = result.checks().get(result.checks().size() - 1);
        assertEquals(Check.Status.SKIP, firewall.status());
        assertEquals("could not read the rules (nft: not installed; iptables-save: exit 4 (iptables-save v1.8.9:"
                + " Permission denied (you must be root))); run as root to check UDP 4791", firewall.found());
    }

    @Test
    void aToolKilledAtItsTimeoutIsSaidSo() {
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, -1, ""));
        LocalChecks.Result result = run("10.0.2.15", "rxe0", null);
        Check firewall = result.checks().get(result.checks().size() - 1);
        assertEquals(Check.Status.SKIP, firewall.status());
        assertEquals("could not read the rules (nft: no answer within 5 s (a loaded machine? run doctor again);"
                + " iptables-save: not installed); run as root to check UDP 4791", firewall.found());
    }

    @Test
    void anUnknownDeviceNamesTheOnesThatExist() {
        LocalChecks.Result result = run("10.0.2.15", "rxe9", null);
        Check device = result.checks().stream().filter(c -> c.name().equals("device")).findFirst().orElseThrow();
        assertCheck(device, "no rxe9 under /sys/class/infiniband (there: rxe0)", "give one of rxe0 as <device>");
    }

    @Test
    void theHostChecksOnAKernelWithoutRdma() {
        fake.delete("/sys/class/infiniband");
        fake.delete("/sys/class/infiniband_verbs");
        fake.delete("/sys/module");
        LocalChecks.Result result = run(null, null, null, FakeHost.enosys());
        assertEquals(List.of("kernel RDMA", "kernel modules"), result.checks().stream().filter(Check::failed)
                .map(Check::name).toList(), () -> text(result));
        assertEquals("sudo modprobe ib_core ib_uverbs rdma_rxe; then sudo rdma link add rxe0 type rxe netdev <netdev>",
                result.checks().get(2).fix());
        assertTrue(result.checks().get(1).fix().endsWith("use the software device: doctor <local_ip> soft0"));
        assertTrue(result.facts().isEmpty());
    }

    private int owner(String absolute) {
        return attribute(absolute, "unix:uid");
    }

    private int group(String absolute) {
        return attribute(absolute, "unix:gid");
    }

    private int attribute(String absolute, String name) {
        try {
            return (Integer) java.nio.file.Files.getAttribute(root.resolve(absolute.substring(1)), name);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Check named(LocalChecks.Result result, String name) {
        return result.checks().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " check:\n" + text(result)));
    }

    /** The memlock limit for a user, on both sides of what the lab registers (72 KiB). */
    @Test
    void aMemlockLimitOfExactlyWhatTheLabRegistersIsEnoughAndOneKibLessIsNot() {
        fake.memlock(String.valueOf(LocalChecks.MEMLOCK_NEEDED));
        Check enough = named(run("10.0.2.15", "rxe0", null), "memlock");
        assertEquals(Check.Status.PASS, enough.status(), enough.found());
        assertEquals("ulimit -l is 72 KiB, enough for 72 KiB (the lab's 64 KiB bulk buffer and the probe's 8 KiB)",
                enough.found());
        fake.memlock(String.valueOf(LocalChecks.MEMLOCK_NEEDED - 1024));
        Check low = named(run("10.0.2.15", "rxe0", null), "memlock");
        assertTrue(low.failed(), low.found());
        assertTrue(low.found().startsWith("ulimit -l is 71 KiB for uid 54321, below the 72 KiB"), low.found());
    }

    @Test
    void anUnlimitedMemlockPassesAndAMissingLineIsSkipped() {
        fake.memlock("unlimited");
        assertEquals("✓ memlock: ulimit -l is unlimited; the lab registers up to 72 KiB (the lab's 64 KiB bulk buffer"
                + " and the probe's 8 KiB)", line(named(run("10.0.2.15", "rxe0", null), "memlock")));
        fake.write("/proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units\n");
        assertEquals("- memlock: /proc/self/limits has no 'Max locked memory' line",
                line(named(run("10.0.2.15", "rxe0", null), "memlock")));
    }

    private static String line(Check check) {
        return check.status().symbol() + " " + check.name() + ": " + check.found()
                + (check.failed() ? "\n    fix: " + check.fix() : "");
    }

    @Test
    void theKernelCheckSaysWhatLibibverbsListsOrWhyItListsNothing() {
        assertEquals("✓ kernel RDMA: libibverbs lists rxe0", line(named(run("10.0.2.15", "rxe0", null), "kernel RDMA")));
        fake.delete("/sys/class/infiniband");
        assertEquals("✗ kernel RDMA: libibverbs lists no devices\n    fix: create one: modprobe rdma_rxe; rdma link add"
                + " rxe0 type rxe netdev <netdev>; or use the software device: doctor 10.0.2.15 soft0",
                line(named(run("10.0.2.15", null, null, FakeHost.listingNone()), "kernel RDMA")));
        assertEquals("- kernel RDMA: this build has no libibverbs backend",
                line(named(run(null, null, null, new Backends(List.of())), "kernel RDMA")));
    }

    @Test
    void aLibibverbsFailureOtherThanEnosysIsShownAsItIs() {
        Backends failing = new Backends(List.of(new org.rdmalab.verbs.spi.VerbsProvider() {
            @Override
            public String name() {
                return "libibverbs";
            }

            @Override
            public List<org.rdmalab.verbs.Device> devices(DeviceOptions options) throws org.rdmalab.verbs.VerbsException {
                throw new org.rdmalab.verbs.VerbsException("ibv_get_device_list", org.rdmalab.verbs.Errno.EACCES, "no access");
            }
        }));
        Check kernel = named(run(null, null, null, failing), "kernel RDMA");
        assertTrue(kernel.failed(), kernel.found());
        assertTrue(kernel.found().contains("EACCES"), kernel.found());
        assertEquals("install rdma-core's libibverbs (apt-get install libibverbs1 ibverbs-providers), or use the"
                + " software device: doctor <local_ip> soft0", kernel.fix());
    }

    @Test
    void twoKernelDevicesLibibverbsDoesNotListAreNamedTogether() {
        fake.write("/sys/class/infiniband/rxe1/ports/1/state", "4: ACTIVE");
        Check kernel = named(run(null, null, null, FakeHost.listingRxe0()), "kernel RDMA");
        assertEquals("the kernel has rxe1 (/sys/class/infiniband), but libibverbs lists only rxe0: it loaded no"
                + " provider for it", kernel.found());
        fake.write("/sys/class/infiniband/rxe2/ports/1/state", "4: ACTIVE");
        Check both = named(run(null, null, null, FakeHost.listingRxe0()), "kernel RDMA");
        assertEquals("the kernel has rxe1, rxe2 (/sys/class/infiniband), but libibverbs lists only rxe0: it loaded no"
                + " provider for them", both.found());
    }

    @Test
    void aPathMtuAboveSoftZerosActiveMtuPointsAtItsLinkMtu() {
        fake.commands.put("ip -o addr show", new CommandRunner.Result(true, 0,
                "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever\n"));
        fake.write("/sys/class/net/lo/mtu", "65536");
        DeviceOptions options = DeviceOptions.defaults().withUdpPort(org.rdmalab.testing.Ports.freeUdpPort());
        LocalChecks.Result result = new LocalChecks(fake.host(), Backends.installed())
                .run(new LocalChecks.Target("127.0.0.1", "soft0", options, Mtu.MTU_4096, 1));
        Check mtu = named(result, "MTU");
        assertTrue(mtu.failed(), () -> text(result));
        assertTrue(mtu.found().startsWith("path MTU 4096 is above the active MTU 1024"), mtu.found());
        assertEquals("use --mtu 1024 or less, or give soft0 a jumbo link on both sides (--link-mtu 9000; its active MTU"
                + " follows that option as rxe's follows its netdev)", mtu.fix());
    }
}
