package org.rdmalab.lab;

import java.util.List;
import java.util.Optional;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Context;
import org.rdmalab.verbs.Device;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.GidSelection;
import org.rdmalab.verbs.LinkLayer;
import org.rdmalab.verbs.PortAttributes;

/** Opening the device and choosing port and GID. */
final class DeviceSteps {

    private DeviceSteps() {
    }

    /** {@code ibv_get_device_list} + {@code ibv_open_device}. */
    static final class OpenDevice extends Step {

        OpenDevice(String device) {
            super("open-device", "Open device", Parameter.text("ib_dev", "device name (ibv_devices lists them)", device));
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    /* ib_dev: "%s" here; the exported program takes it from argv[2] */
                    struct ibv_device **dev_list = ibv_get_device_list(&num_devices);
                    for (i = 0; i < num_devices; i++)
                        if (!strcmp(ibv_get_device_name(dev_list[i]), config.dev_name))
                            break;
                    res->ctx = i < num_devices ? ibv_open_device(dev_list[i]) : NULL;
                    if (dev_list)
                        ibv_free_device_list(dev_list);""".formatted(parameter("ib_dev").value());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().context().isPresent() ? Optional.of(LabPhrase.of("blocked.deviceOpen"))
                    : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            Device device = session.backends().find(parameter("ib_dev").value(), session.deviceOptions());
            Context context = device.open();
            session.opened(context);
            session.emit(LabEvent.VerbCall.ok("ibv_open_device", "device " + device.name(), device.name() + " (" + device.description() + ")"));
            session.print("found device " + device.name());
            return StepResult.ok(LabPhrase.of("result.opened", device.name()), Phrase.literal(device.description()));
        }
    }

    /** {@code ibv_query_port} + {@code ibv_query_gid}. */
    static final class QueryPort extends Step {

        QueryPort(int ibPort, String gidIndex) {
            super("query-port", "Query port and GID",
                    Parameter.integer("ib_port", "the device port", ibPort, 1, 255),
                    Parameter.text("gid_idx", "GID index; auto = the GID carrying the local address, else the best by perftest's scoring;"
                            + " -1 = no GRH (the seed)",
                            gidIndex));
        }

        @Override
        public String cCode(LabSession session) {
            int port = parameter("ib_port").asInt();
            return """
                    rc = ibv_query_port(res->ctx, %d, &res->port_attr);
                    config.gid_idx = %s;
                    if (!rc && config.gid_idx >= 0)
                        rc = ibv_query_gid(res->ctx, %d, config.gid_idx, &my_gid);
                    else
                        memset(&my_gid, 0, sizeof my_gid);""".formatted(port, gidIndexC(session), port);
        }

        /**
         * The GID index as C, without the semicolon: the number; for auto, the index already chosen
         * (once this step ran) or a call of the program's {@code best_gid_index}, perftest's scoring.
         */
        String gidIndexC(LabSession session) {
            String choice = parameter("gid_idx").value().trim();
            if (!choice.equalsIgnoreCase("auto")) {
                return choice;
            }
            return session.resources().gidEntry().map(entry -> entry.index() + " /* auto: " + entry.gid() + ", "
                    + entry.type().text() + " */")
                    .orElse("best_gid_index(res->ctx, " + parameter("ib_port").asInt()
                            + ", res->port_attr.gid_tbl_len) /* auto: perftest's scoring */");
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().context().isEmpty() ? Optional.of(LabPhrase.of("blocked.openDevice"))
                    : Optional.empty();
        }

        int port() {
            return parameter("ib_port").asInt();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            Context context = resources.context().orElseThrow();
            int port = port();
            PortAttributes attributes = context.queryPort(port);
            resources.portAttributes(attributes);
            session.emit(LabEvent.VerbCall.ok("ibv_query_port", "ctx " + context.device().name() + ", port_num " + port, "port " + port + " " + attributes.state().cName()
                    + ", active_mtu " + attributes.activeMtu().bytes() + ", link_layer " + attributes.linkLayer().text()
                    + ", lid " + attributes.lid()));
            String choice = parameter("gid_idx").value().trim();
            GidEntry entry;
            String why = "";
            if (choice.equalsIgnoreCase("auto")) {
                // The GID that carries <local_ip>, as soft0's table (derived from that address) gives it.
                List<GidEntry> table = context.gidTable(port);
                Optional<GidSelection.Choice> chosen = GidSelection.forAddress(table, session.deviceOptions().address());
                entry = chosen.map(GidSelection.Choice::entry).orElse(null);
                why = chosen.map(c -> " (gid_idx auto: " + c.reason() + ")").orElse("");
                resources.gidChoice(chosen.map(GidSelection.Choice::reason).orElse(""), table.size());
            } else {
                int index;
                try {
                    index = Integer.parseInt(choice);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("gid_idx: '" + choice + "' is not auto, -1 or an index");
                }
                entry = index < 0 ? null : context.queryGidEntry(port, index);
                resources.gidChoice("", 0);
            }
            resources.gidEntry(entry);
            Phrase gidLine = entry == null
                    ? LabPhrase.of(attributes.linkLayer() == LinkLayer.ETHERNET ? "result.noGidRoce" : "result.noGid")
                    : Phrase.literal("GID[" + entry.index() + "] " + entry.gid() + " " + entry.type().text() + why);
            session.emit(LabEvent.VerbCall.ok("ibv_query_gid", "ctx " + context.device().name() + ", port_num " + port + ", index " + (entry == null ? choice : entry.index()), gidLine.english()));
            return StepResult.ok(LabPhrase.of("result.port", port, attributes.state().name(), gidLine));
        }
    }
}
