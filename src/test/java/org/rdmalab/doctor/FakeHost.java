package org.rdmalab.doctor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import org.rdmalab.verbs.spi.VerbsProvider;

/**
 * A machine in a folder: the sysfs, procfs and /dev files a healthy rxe0 on eth0 (10.0.2.15/24,
 * MTU 1500) shows on kernel 6.1, laid out as Linux lays them out, and a command runner answering
 * from a table. Each test breaks one thing.
 */
final class FakeHost {

    static final String ADDRESSES = """
            1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
            2: eth0    inet 10.0.2.15/24 brd 10.0.2.255 scope global eth0\\       valid_lft forever preferred_lft forever
            2: eth0    inet6 fe80::5054:ff:fe12:3456/64 scope link \\       valid_lft forever preferred_lft forever
            """;

    /** A user that owns none of the test files, whoever runs the tests. */
    static final int UID = 54321;

    final Path root;
    final Map<String, CommandRunner.Result> commands = new HashMap<>();

    FakeHost(Path root) {
        this.root = root;
        write("/sys/class/infiniband/rxe0/parent", "eth0");
        String port = "/sys/class/infiniband/rxe0/ports/1";
        write(port + "/state", "4: ACTIVE");
        write(port + "/phys_state", "5: LinkUp");
        write(port + "/link_layer", "Ethernet");
        write(port + "/hw_counters/rcvd_pkts", "0");
        gid(0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "IB/RoCE v1");
        gid(1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2");
        gid(2, "0000:0000:0000:0000:0000:ffff:0a00:020f", "IB/RoCE v1");
        gid(3, "0000:0000:0000:0000:0000:ffff:0a00:020f", "RoCE v2");
        write(port + "/gids/4", "0000:0000:0000:0000:0000:0000:0000:0000");
        write("/sys/class/infiniband_verbs/uverbs0/ibdev", "rxe0");
        write("/dev/infiniband/uverbs0", "");
        mode("/dev/infiniband/uverbs0", "rw-rw-rw-");
        for (String module : List.of("ib_core", "ib_uverbs", "rdma_rxe")) {
            mkdir("/sys/module/" + module);
        }
        write("/usr/lib/x86_64-linux-gnu/libibverbs.so.1", "");
        write("/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", "");
        write("/etc/libibverbs.d/mlx5.driver", "driver mlx5");
        write("/etc/libibverbs.d/rxe.driver", "driver rxe");
        memlock("8388608");
        user(UID, UID);
        write("/sys/class/net/eth0/operstate", "up");
        write("/sys/class/net/eth0/mtu", "1500");
        write("/sys/class/net/lo/operstate", "unknown");
        write("/sys/class/net/lo/mtu", "65536");
        commands.put("ip -o addr show", new CommandRunner.Result(true, 0, ADDRESSES));
        commands.put("nft list ruleset", new CommandRunner.Result(true, 0, """
                table inet filter {
                \tchain input {
                \t\ttype filter hook input priority filter; policy accept;
                \t\ttcp dport 22 accept
                \t}
                }
                """));
    }

    void gid(int index, String gid, String type) {
        String port = "/sys/class/infiniband/rxe0/ports/1";
        write(port + "/gids/" + index, gid);
        write(port + "/gid_attrs/types/" + index, type);
        write(port + "/gid_attrs/ndevs/" + index, "eth0");
    }

    void memlock(String soft) {
        write("/proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units\n"
                + "Max locked memory         " + soft + "              " + soft + "              bytes\n");
    }

    void user(int uid, int gid) {
        write("/proc/self/status", "Name:\tjava\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid + "\nGid:\t" + gid
                + "\t" + gid + "\t" + gid + "\t" + gid + "\nGroups:\t" + gid + "\n");
    }

    Host host() {
        return host(Host.LIBRARY_DIRS);
    }

    /** The machine with these library folders (LD_LIBRARY_PATH's first, as {@link Host#system()} puts them). */
    Host host(List<String> libraryDirs) {
        return new Host(root, command -> commands.getOrDefault(String.join(" ", command),
                CommandRunner.Result.notFound()), libraryDirs);
    }

    void write(String absolute, String text) {
        Path path = root.resolve(absolute.substring(1));
        try {
            Files.createDirectories(path.getParent());
            Files.writeString(path, text + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void mkdir(String absolute) {
        try {
            Files.createDirectories(root.resolve(absolute.substring(1)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void delete(String absolute) {
        Path path = root.resolve(absolute.substring(1));
        try (var walk = Files.walk(path)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void mode(String absolute, String permissions) {
        try {
            Files.setPosixFilePermissions(root.resolve(absolute.substring(1)),
                    PosixFilePermissions.fromString(permissions));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A libibverbs backend that lists rxe0 but cannot open it (so the MTU comes from the netdev, as rxe's would). */
    static Backends listingRxe0() {
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
                return "rxe0 (fake)";
            }

            @Override
            public Context open() throws VerbsException {
                throw new VerbsException("ibv_open_device", Errno.ENODEV, "a fake device");
            }
        };
        return new Backends(List.of(provider(List.of(rxe0), null)));
    }

    /** A libibverbs backend that lists no device (no provider loaded for the kernel's devices). */
    static Backends listingNone() {
        return new Backends(List.of(provider(List.of(), null)));
    }

    /** A libibverbs backend on a kernel without RDMA. */
    static Backends enosys() {
        return new Backends(List.of(provider(List.of(), new VerbsException("ibv_get_device_list", Errno.ENOSYS,
                "Failed to get IB devices list"))));
    }

    private static VerbsProvider provider(List<Device> devices, VerbsException failure) {
        return new VerbsProvider() {
            @Override
            public String name() {
                return "libibverbs";
            }

            @Override
            public List<Device> devices(DeviceOptions options) throws VerbsException {
                if (failure != null) {
                    throw failure;
                }
                return devices;
            }
        };
    }
}
