package org.rdmalab.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * The checks of the machine around the devices, one line as doctor prints it for each case a user
 * can meet: which kernel modules a device needs, where a provider library is and is not found,
 * who may open a device node, and what the firewall tools said. Each test breaks one thing of the
 * healthy rxe0 of {@link FakeHost}.
 */
class HostChecksTest {

    @TempDir
    Path root;

    FakeHost fake;

    @BeforeEach
    void healthyRxe() {
        fake = new FakeHost(root);
    }

    private LocalChecks.Result run(String ip, String device) {
        return run(ip, device, fake.host());
    }

    private LocalChecks.Result run(String ip, String device, Host host) {
        return new LocalChecks(host, FakeHost.listingRxe0()).run(new LocalChecks.Target(ip, device,
                DeviceOptions.defaults(), null, 1));
    }

    private static Check named(LocalChecks.Result result, String name) {
        return result.checks().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " check:\n" + LocalChecksTest.text(result)));
    }

    /** The check as doctor prints it: its symbol, name, what was found and, for a failure, the fix. */
    private static String line(Check check) {
        return check.status().symbol() + " " + check.name() + ": " + check.found()
                + (check.failed() ? "\n    fix: " + check.fix() : "");
    }

    private String line(String name) {
        return line(named(run("10.0.2.15", "rxe0"), name));
    }

    /** A second kernel device, mlx5_0, on an InfiniBand port. */
    private void mlx5() {
        String port = "/sys/class/infiniband/mlx5_0/ports/1";
        fake.write(port + "/state", "4: ACTIVE");
        fake.write(port + "/phys_state", "5: LinkUp");
        fake.write(port + "/link_layer", "InfiniBand");
    }

    @Test
    void theHealthyMachinesHostChecksSayWhatWasFound() {
        LocalChecks.Result result = run("10.0.2.15", "rxe0");
        assertEquals("✓ libibverbs: found /usr/lib/x86_64-linux-gnu/libibverbs.so.1", line(named(result, "libibverbs")));
        assertEquals("✓ kernel modules: ib_core, ib_uverbs, rdma_rxe are loaded", line(named(result, "kernel modules")));
        assertEquals("✓ device node rxe0: /dev/infiniband/uverbs0 (mode 666, owner " + owner() + ", group "
                + group() + ") is readable and writable by uid 54321", line(named(result, "device node rxe0")));
    }

    @Test
    void eachDeviceAddsItsOwnModuleOnceAndAMissingOneOtherThanRxeIsLoadedAlone() {
        mlx5();
        fake.write("/sys/class/infiniband/rxe1/ports/1/state", "4: ACTIVE");
        LocalChecks.Result loadedRxe = run(null, null);
        assertEquals("✗ kernel modules: not loaded: mlx5_ib (neither in /proc/modules nor under /sys/module)\n"
                + "    fix: sudo modprobe mlx5_ib", line(named(loadedRxe, "kernel modules")));
        fake.mkdir("/sys/module/mlx5_ib");
        assertEquals("✓ kernel modules: ib_core, ib_uverbs, mlx5_ib, rdma_rxe are loaded",
                line(named(run(null, null), "kernel modules")));
    }

    @Test
    void withoutAnyDeviceRxesModuleIsStillNeeded() {
        fake.delete("/sys/class/infiniband");
        fake.delete("/sys/module/rdma_rxe");
        assertEquals("✗ kernel modules: not loaded: rdma_rxe (neither in /proc/modules nor under /sys/module)\n"
                + "    fix: sudo modprobe rdma_rxe; then sudo rdma link add rxe0 type rxe netdev <netdev>",
                line(named(run(null, null), "kernel modules")));
    }

    @Test
    void aModuleIsLoadedOnlyWhenProcModulesHasALineForThatNameItself() {
        fake.delete("/sys/module/rdma_rxe");
        fake.write("/proc/modules", "ib_core 462848 1 rdma_rxe, Live 0x0\nrdma_rxe_test 16384 0 - Live 0x0");
        assertEquals("✗ kernel modules: not loaded: rdma_rxe (neither in /proc/modules nor under /sys/module)\n"
                + "    fix: sudo modprobe rdma_rxe; then sudo rdma link add rxe0 type rxe netdev <netdev>",
                line("kernel modules"));
    }

    @Test
    void aDeviceOfAnUnknownDriverIsSkippedNotFailed() {
        fake.write("/sys/class/infiniband/foo0/ports/1/state", "4: ACTIVE");
        assertEquals("- provider foo0: RDMA Lab does not know which provider library serves foo0",
                line(named(run(null, "foo0"), "provider foo0")));
    }

    @Test
    void onlyALibraryNamedLibProviderRdmavSoIsTheProvider() {
        String folder = "/usr/lib/x86_64-linux-gnu/libibverbs";
        fake.delete(folder + "/librxe-rdmav34.so");
        fake.write(folder + "/libmlx5-rdmav34.so", "");
        fake.write(folder + "/librxe-rdmav34.so.bak", "");
        assertEquals("✗ provider rxe0: no librxe-rdmav*.so in any libibverbs folder or on the library path, so"
                + " libibverbs skips rxe0 (it warns: couldn't load driver 'librxe-rdmav*.so')\n"
                + "    fix: install the providers: apt-get install ibverbs-providers (Debian, Ubuntu) or dnf install"
                + " libibverbs (Fedora, RHEL)", line("provider rxe0"));
    }

    @Test
    void aProviderInALaterLibraryFolderIsFound() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so");
        fake.write("/usr/lib64/libibverbs/librxe-rdmav34.so", "");
        assertEquals("✓ provider rxe0: found /usr/lib64/libibverbs/librxe-rdmav34.so, named in"
                + " /etc/libibverbs.d/rxe.driver", line("provider rxe0"));
    }

    @Test
    void onlyAVisibleFileWithTheLineDriverNameNamesTheProvider() {
        String unnamed = "✗ provider rxe0: found /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so, but no file"
                + " in /etc/libibverbs.d names it (a line 'driver rxe'), and libibverbs loads only the providers named"
                + " there, so it skips rxe0\n    fix: reinstall the providers (apt-get install --reinstall"
                + " ibverbs-providers puts rxe.driver there), or: echo 'driver rxe' | sudo tee"
                + " /etc/libibverbs.d/rxe.driver";
        fake.delete("/etc/libibverbs.d/rxe.driver");
        fake.write("/etc/libibverbs.d/.rxe.driver", "driver rxe");
        assertEquals(unnamed, line("provider rxe0"));
        fake.write("/etc/libibverbs.d/rxe.driver", "driver rxe old\nprovider rxe\n# driver rxe");
        assertEquals(unnamed, line("provider rxe0"));
        fake.write("/etc/libibverbs.d/rxe.driver", "# rdma-core\n  driver   rxe  ");
        assertEquals("✓ provider rxe0: found /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so, named in"
                + " /etc/libibverbs.d/rxe.driver", line("provider rxe0"));
    }

    @Test
    void theDeviceNodeIsTheOneWhoseIbdevIsTheDevice() {
        int owner = owner();
        int group = group();
        fake.write("/sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_0");
        fake.write("/sys/class/infiniband_verbs/uverbs1/ibdev", "rxe0");
        fake.delete("/dev/infiniband/uverbs0");
        fake.write("/dev/infiniband/uverbs1", "");
        fake.mode("/dev/infiniband/uverbs1", "rw-rw-rw-");
        assertEquals("✓ device node rxe0: /dev/infiniband/uverbs1 (mode 666, owner " + owner + ", group "
                + group + ") is readable and writable by uid 54321", line("device node rxe0"));
    }

    @Test
    void aDeviceNodeUdevDidNotCreate() {
        fake.delete("/dev/infiniband/uverbs0");
        assertEquals("✗ device node rxe0: /dev/infiniband/uverbs0 is missing\n    fix: udev did not create it: install"
                + " rdma-core (its udev rules create /dev/infiniband/uverbs*) or run sudo udevadm trigger",
                line("device node rxe0"));
    }

    private Check.Status node(String mode, int uid, int gid) {
        fake.mode("/dev/infiniband/uverbs0", mode);
        fake.user(uid, gid);
        return named(run("10.0.2.15", "rxe0"), "device node rxe0").status();
    }

    /** The owner's bits decide for the owner, the group's for a member, the others' for anyone else. */
    @Test
    void theModeBitsThatApplyToTheUserDecide() {
        ownedBySomeoneElse();
        int owner = owner();
        int group = group();
        int stranger = FakeHost.UID;
        int otherGroup = group + 1000;
        assertEquals(Check.Status.PASS, node("rw-------", owner, otherGroup));
        assertEquals(Check.Status.FAIL, node("r-xrw-rw-", owner, group));
        assertEquals(Check.Status.FAIL, node("-w-rw-rw-", owner, group));
        assertEquals(Check.Status.PASS, node("---rw----", stranger, group));
        assertEquals(Check.Status.FAIL, node("rw-r--rw-", stranger, group));
        assertEquals(Check.Status.FAIL, node("rw--w-rw-", stranger, group));
        assertEquals(Check.Status.PASS, node("------rw-", stranger, otherGroup));
        assertEquals(Check.Status.FAIL, node("rw-rw-r--", stranger, otherGroup));
        assertEquals(Check.Status.FAIL, node("rw-rw--w-", stranger, otherGroup));
    }

    @Test
    void rootOpensANodeWhateverItsMode() {
        ownedBySomeoneElse();
        assertEquals(Check.Status.PASS, node("---------", 0, 0));
    }

    /** Gives the node an owner that is neither root nor the test's user, when the tests may (as root). */
    private void ownedBySomeoneElse() {
        if (owner() == 0) {
            try {
                Files.setAttribute(root.resolve("dev/infiniband/uverbs0"), "unix:uid", FakeHost.UID + 1);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Test
    void theNodesGroupIsNamedFromEtcGroup() {
        fake.write("/etc/group", "short:x\nwheel:x:" + (group() + 1) + ":\nrdma:x:" + group() + ":alice");
        fake.mode("/dev/infiniband/uverbs0", "rw-rw----");
        assertEquals("✗ device node rxe0: /dev/infiniband/uverbs0 (mode 660, owner " + owner() + ", group rdma) is not"
                + " readable and writable by uid 54321\n    fix: add the user to group rdma (sudo usermod -aG rdma"
                + " <user>, then log in again), or sudo chmod 666 /dev/infiniband/uverbs0 to try",
                line("device node rxe0"));
    }

    @Test
    void anIptablesDropPolicyWithoutAnAcceptFails() {
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 0, "*filter\n:INPUT DROP [0:0]\n"
                + "-A INPUT -p tcp --dport 22 -j ACCEPT\nCOMMIT\n"));
        assertEquals("✗ firewall: the input policy drops what no rule accepts, and no rule accepts UDP 4791"
                + " (iptables-save: :INPUT DROP [0:0])\n    fix: nft insert rule inet filter input udp dport 4791"
                + " accept, or iptables -I INPUT -p udp --dport 4791 -j ACCEPT (on both machines)", line("firewall"));
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 0, "*filter\n:INPUT DROP [0:0]\n"
                + "-A INPUT -p udp -m udp --dport 4791 -j ACCEPT\nCOMMIT\n"));
        assertEquals("✓ firewall: no rule drops UDP 4791", line("firewall"));
    }

    /** A rule that only counts or logs UDP 4791 accepts nothing. */
    @Test
    void aRuleThatOnlyCountsUdp4791DoesNotOpenADropPolicy() {
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, 0, "table inet filter {\n chain input {\n"
                + "  type filter hook input priority filter; policy drop;\n  udp dport 4791 counter\n }\n}\n"));
        assertEquals(Check.Status.FAIL, named(run("10.0.2.15", "rxe0"), "firewall").status());
    }

    @Test
    void whenBothToolsReadTheRulesNothingIsSaidUnread() {
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 0, "*filter\n:INPUT ACCEPT [0:0]\nCOMMIT\n"));
        assertEquals("✓ firewall: no rule drops UDP 4791", line("firewall"));
    }

    @Test
    void rootIsNotToldToRunAsRootWhenTheToolsFail() {
        fake.user(0, 0);
        fake.commands.put("nft list ruleset", new CommandRunner.Result(true, 1, ""));
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 2, "\n  iptables-save: broken table\nmore\n"));
        assertEquals("- firewall: could not read the rules (nft: exit 1; iptables-save: exit 2 (iptables-save: broken"
                + " table))", line("firewall"));
    }

    @Test
    void aToolThatAnswersOnlyAfterTheOtherFailedIsStillRead() {
        fake.commands.remove("nft list ruleset");
        fake.commands.put("iptables-save", new CommandRunner.Result(true, 0, "*filter\n-A INPUT -p udp --dport 4791"
                + " -j DROP\nCOMMIT\n"));
        assertEquals("✗ firewall: a rule drops RoCE v2 (UDP 4791): iptables-save: -A INPUT -p udp --dport 4791 -j DROP"
                + "\n    fix: delete that rule (nft -a list ruleset shows its handle; iptables -D ...), or allow it"
                + " first: nft insert rule inet filter input udp dport 4791 accept, or iptables -I INPUT -p udp"
                + " --dport 4791 -j ACCEPT (on both machines)", line("firewall"));
    }

    /** Only the named device's kernel entry is compared with what libibverbs lists. */
    @Test
    void theKernelCheckOfOneDeviceLooksAtThatDeviceAlone() {
        fake.write("/sys/class/infiniband/rxe1/ports/1/state", "4: ACTIVE");
        assertEquals("✓ kernel RDMA: libibverbs lists rxe0", line(named(run("10.0.2.15", "rxe0"), "kernel RDMA")));
        assertEquals("✓ kernel RDMA: libibverbs lists rxe0", line(named(run("10.0.2.15", "rxe9"), "kernel RDMA")));
        assertEquals("✗ kernel RDMA: the kernel has rxe1 (/sys/class/infiniband), but libibverbs lists only rxe0: it"
                + " loaded no provider for it\n    fix: see the provider check below: the provider library and its"
                + " /etc/libibverbs.d entry", line(named(run("10.0.2.15", "rxe1"), "kernel RDMA")));
    }

    private int owner() {
        return attribute("unix:uid");
    }

    private int group() {
        return attribute("unix:gid");
    }

    private int attribute(String name) {
        try {
            return (Integer) Files.getAttribute(root.resolve("dev/infiniband/uverbs0"), name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aMachineWithoutLibibverbsSaysWhereItLooked() {
        fake.delete("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
        List<String> dirs = new ArrayList<>(List.of("/opt/a", "/opt/b"));
        Check check = named(run("10.0.2.15", "rxe0", fake.host(dirs)), "libibverbs");
        assertEquals("✗ libibverbs: libibverbs.so.1 is in none of /opt/a, /opt/b\n    fix: install it: apt-get install"
                + " libibverbs1 ibverbs-providers (Debian, Ubuntu) or dnf install libibverbs (Fedora, RHEL)", line(check));
        assertFalse(run("10.0.2.15", "rxe0", fake.host(dirs)).passed());
    }
}
