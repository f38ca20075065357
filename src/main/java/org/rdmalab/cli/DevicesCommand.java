package org.rdmalab.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.rdmalab.text.Json;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.DeviceAttributes;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.PortAttributes;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code devices}: every device of every backend, its ports and GID table. */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = "Lists the RDMA devices of every backend with their ports and GID tables (like ibv_devinfo -v).")
final class DevicesCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    JsonOption json;

    @Option(names = "--soft-address", defaultValue = "127.0.0.1",
            description = "IPv4 address the software device binds (default ${DEFAULT-VALUE}).")
    String softAddress;

    @Override
    public Integer call() {
        DeviceOptions options = DeviceOptions.defaults().withAddress(DeviceOptions.parseAddress(softAddress));
        List<Map<String, Object>> backends = new ArrayList<>();
        for (Backends.Listing listing : Backends.installed().list(options)) {
            Map<String, Object> backend = new LinkedHashMap<>();
            backend.put("backend", listing.provider().name());
            if (listing.failure() != null) {
                backend.put("error", listing.failure().getMessage());
            }
            List<Map<String, Object>> devices = new ArrayList<>();
            for (Device device : listing.devices()) {
                devices.add(describe(device));
            }
            backend.put("devices", devices);
            backends.add(backend);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json.json()) {
            out.println(Json.write(Map.of("backends", backends)));
        } else {
            printText(out, backends);
        }
        out.flush();
        return 0;
    }

    private static Map<String, Object> describe(Device device) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", device.name());
        entry.put("backend", device.backend());
        entry.put("description", device.description());
        try (Context context = device.open()) {
            DeviceAttributes attributes = context.queryDevice();
            entry.put("node_guid", attributes.nodeGuidText());
            entry.put("fw_ver", attributes.firmwareVersion());
            entry.put("phys_port_cnt", attributes.physPortCount());
            List<Map<String, Object>> ports = new ArrayList<>();
            for (int port = 1; port <= attributes.physPortCount(); port++) {
                ports.add(describePort(context, port));
            }
            entry.put("ports", ports);
        } catch (VerbsException e) {
            entry.put("error", e.getMessage());
        }
        return entry;
    }

    private static Map<String, Object> describePort(Context context, int port) throws VerbsException {
        PortAttributes attributes = context.queryPort(port);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("port", port);
        entry.put("state", attributes.state().cName());
        entry.put("state_value", attributes.state().value());
        entry.put("max_mtu", attributes.maxMtu().bytes());
        entry.put("active_mtu", attributes.activeMtu().bytes());
        entry.put("link_layer", attributes.linkLayer().text());
        entry.put("lid", attributes.lid());
        entry.put("gid_tbl_len", attributes.gidTableLength());
        List<Map<String, Object>> gids = new ArrayList<>();
        for (GidEntry gid : context.gidTable(port)) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("index", gid.index());
            row.put("gid", gid.gid().toString());
            row.put("type", gid.type().text());
            row.put("netdev", gid.netdev());
            row.put("ip", gid.ipAddress());
            gids.add(row);
        }
        entry.put("gids", gids);
        return entry;
    }

    @SuppressWarnings("unchecked")
    private static void printText(PrintWriter out, List<Map<String, Object>> backends) {
        for (Map<String, Object> backend : backends) {
            out.println("backend " + backend.get("backend") + ":");
            if (backend.containsKey("error")) {
                out.println("  " + backend.get("error"));
            }
            List<Map<String, Object>> devices = (List<Map<String, Object>>) backend.get("devices");
            if (devices.isEmpty() && !backend.containsKey("error")) {
                out.println("  no devices");
            }
            for (Map<String, Object> device : devices) {
                out.println("  hca_id: " + device.get("name") + "  (" + device.get("description") + ")");
                if (device.containsKey("error")) {
                    out.println("    " + device.get("error"));
                    continue;
                }
                out.println("    node_guid:    " + device.get("node_guid"));
                out.println("    fw_ver:       " + device.get("fw_ver"));
                for (Map<String, Object> port : (List<Map<String, Object>>) device.get("ports")) {
                    out.println("    port: " + port.get("port"));
                    out.println("      state:        " + port.get("state") + " (" + port.get("state_value") + ")");
                    out.println("      max_mtu:      " + port.get("max_mtu"));
                    out.println("      active_mtu:   " + port.get("active_mtu"));
                    out.println("      link_layer:   " + port.get("link_layer"));
                    out.println("      lid:          " + port.get("lid"));
                    for (Map<String, Object> gid : (List<Map<String, Object>>) port.get("gids")) {
                        String where = gid.get("netdev") + ("".equals(gid.get("ip")) ? "" : " " + gid.get("ip"));
                        out.println(String.format("      GID[%4d]:    %-28s %-8s %s", gid.get("index"), gid.get("gid"),
                                gid.get("type"), where));
                    }
                }
            }
        }
    }
}
