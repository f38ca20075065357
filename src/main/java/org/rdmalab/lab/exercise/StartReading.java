package org.rdmalab.lab.exercise;

import static org.rdmalab.lab.exercise.YamlReading.firstLine;
import static org.rdmalab.lab.exercise.YamlReading.quoted;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;
import org.rdmalab.verbs.AccessFlag;
import org.rdmalab.verbs.FaultSettings;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads an exercise file's {@code start}: the flow, the GID index, the device, the faults, the
 * access flags and the step parameters, each step and parameter checked against the seed's own
 * steps (a parameter's value goes through the step's own validation). Also says whether a flow has
 * a step, for the checks that name one ({@link CheckReading}).
 *
 * <p>One thread uses an instance, for one file.
 */
final class StartReading {

    static final List<String> SIDES = List.of("server", "client");
    private static final List<String> START = List.of("flow", "gid_idx", "device", "faults", "mr_flags",
            "qp_access_flags", "params");
    private static final List<String> PARAM = List.of("side", "step", "parameter", "value");
    private static final List<String> EDIT_SIDES = List.of("server", "client", "both");
    private static final List<String> FLOWS = List.of("write-only", "rc-example");

    private final YamlReading yaml;
    /** The seed's steps per side and flow, to check step ids and parameters against. */
    private final Map<String, List<Step>> steps = new HashMap<>();

    StartReading(YamlReading yaml) {
        this.yaml = yaml;
    }

    /** The {@code start} mapping; null when it is refused. */
    Start start(Node node) {
        YamlReading.Fields start = yaml.fields(node, "start", START);
        if (start == null) {
            return null;
        }
        Flows.SeedFlow flow = start.required("flow").map(value -> {
            String label = yaml.choice(value, "start.flow", FLOWS, "a flow");
            return label == null ? null : Flows.SeedFlow.parse(label);
        }).orElse(null);
        String gid = start.optional("gid_idx").map(this::gidIndex).orElse("-1");
        String device = start.optional("device").map(this::device).orElse(null);
        FaultSettings faults = start.optional("faults").map(this::faults).orElse(null);
        List<Start.Edit> edits = new ArrayList<>();
        start.optional("mr_flags").ifPresent(value -> access(value, "start.mr_flags", "reg-mr", "mr_flags", edits));
        start.optional("qp_access_flags").ifPresent(value -> access(value, "start.qp_access_flags", "modify-init",
                "qp_access_flags", edits));
        start.optional("params").ifPresent(value -> params(value, flow, edits));
        if (flow == null || gid == null) {
            return null;
        }
        return new Start(flow, gid, edits, device, faults);
    }

    private String gidIndex(Node node) {
        if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.STR)
                && scalar.getValue().equalsIgnoreCase("auto")) {
            return "auto";
        }
        if (node instanceof ScalarNode scalar && scalar.getTag().equals(Tag.STR)) {
            yaml.problem(node, "start.gid_idx", "'" + scalar.getValue() + "' is not a GID index: give -1 (no GRH, the"
                    + " seed's), auto, or an index 0..255");
            return null;
        }
        Long index = yaml.integer(node, "start.gid_idx", -1, 255);
        return index == null ? null : Long.toString(index);
    }

    private String device(Node node) {
        String device = yaml.string(node, "start.device");
        if (device != null && !device.matches("[A-Za-z0-9_.-]{1,64}")) {
            yaml.problem(node, "start.device", "'" + device + "' is not a device name (soft0, rxe0, mlx5_0)");
            return null;
        }
        return device;
    }

    private FaultSettings faults(Node node) {
        String spec = yaml.string(node, "start.faults");
        if (spec == null) {
            return null;
        }
        try {
            return FaultSettings.parse(spec);
        } catch (IllegalArgumentException e) {
            yaml.problem(node, "start.faults", e.getMessage() + " (the spec of --fault, e.g. drop=0.05,seed=7)");
            return null;
        }
    }

    /** Access flags: a list for both sides, or {@code server:} and {@code client:} lists. */
    private void access(Node node, String field, String step, String parameter, List<Start.Edit> edits) {
        if (node instanceof MappingNode) {
            YamlReading.Fields sides = yaml.fields(node, field, SIDES);
            if (sides == null) {
                return;
            }
            for (String side : SIDES) {
                sides.optional(side).ifPresent(value -> {
                    String flags = flags(value, field + "." + side);
                    if (flags != null) {
                        edits.add(new Start.Edit(Role.valueOf(side.toUpperCase(Locale.ROOT)), step, parameter,
                                flags));
                    }
                });
            }
            return;
        }
        String flags = flags(node, field);
        if (flags != null) {
            edits.add(Start.Edit.both(step, parameter, flags));
        }
    }

    private String flags(Node node, String field) {
        List<Node> items = yaml.sequence(node, field, 0);
        if (items == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        List<String> valid = Arrays.stream(AccessFlag.values()).map(Enum::name).toList();
        for (int i = 0; i < items.size(); i++) {
            String flag = yaml.string(items.get(i), field + "[" + (i + 1) + "]");
            if (flag == null) {
                continue;
            }
            String bare = flag.trim().toUpperCase(Locale.ROOT).replaceFirst("^IBV_ACCESS_", "");
            if (!valid.contains(bare)) {
                yaml.problem(items.get(i), field + "[" + (i + 1) + "]", "'" + flag + "' is not an access flag ("
                        + quoted(valid) + ")");
                return null;
            }
            names.add(bare);
        }
        return names.isEmpty() ? "0" : String.join(", ", names);
    }

    private void params(Node node, Flows.SeedFlow flow, List<Start.Edit> edits) {
        List<Node> items = yaml.sequence(node, "start.params", 0);
        if (items == null) {
            return;
        }
        for (int i = 0; i < items.size(); i++) {
            String field = "start.params[" + (i + 1) + "]";
            YamlReading.Fields param = yaml.fields(items.get(i), field, PARAM);
            if (param == null) {
                continue;
            }
            String side = param.optional("side").map(value -> yaml.choice(value, field + ".side", EDIT_SIDES, "a side"))
                    .orElse("both");
            String step = param.required("step").map(value -> yaml.string(value, field + ".step")).orElse(null);
            String name = param.required("parameter").map(value -> yaml.string(value, field + ".parameter"))
                    .orElse(null);
            Node valueNode = param.required("value").orElse(null);
            String value = valueNode == null ? null : yaml.scalar(valueNode, field + ".value");
            if (side == null || step == null || name == null || value == null) {
                continue;
            }
            Role role = side.equals("both") ? null : Role.valueOf(side.toUpperCase(Locale.ROOT));
            if (flow != null && stepOk(param.node("step"), field + ".step", role, flow, step)
                    && parameterOk(param, field, role, flow, step, name, value)) {
                edits.add(new Start.Edit(role, step, name, value));
            }
        }
    }

    /**
     * True when {@code side}'s (null: each side's) {@code flow} has the step {@code step}; else a
     * problem at {@code at} that lists the flow's steps.
     */
    boolean stepOk(Node at, String field, Role side, Flows.SeedFlow flow, String step) {
        for (Role role : Role.values()) {
            if ((side == null || side == role) && find(role, flow, step).isEmpty()) {
                yaml.problem(at, field, "the " + role.name().toLowerCase(Locale.ROOT) + "'s " + flow.label()
                        + " flow has no step '" + step + "' (" + quoted(stepIds(role, flow)) + ")");
                return false;
            }
        }
        return true;
    }

    private boolean parameterOk(YamlReading.Fields param, String field, Role side, Flows.SeedFlow flow, String step,
                                String name, String value) {
        for (Role role : Role.values()) {
            if (side != null && side != role) {
                continue;
            }
            Step found = find(role, flow, step).orElseThrow();
            if (found.parameters().stream().noneMatch(parameter -> parameter.name().equals(name))) {
                yaml.problem(param.node("parameter"), field + ".parameter", "step '" + step + "' has no parameter '"
                        + name + "' (" + quoted(found.parameters().stream().map(each -> each.name()).toList())
                        + ")");
                return false;
            }
            try {
                found.parameter(name).set(value);
            } catch (IllegalArgumentException e) {
                yaml.problem(param.node("value"), field + ".value", firstLine(e.getMessage()));
                return false;
            }
        }
        return true;
    }

    private List<Step> steps(Role role, Flows.SeedFlow flow) {
        return steps.computeIfAbsent(role + "/" + flow, key -> Flows.seed(role, flow,
                Flows.Settings.seed("soft0"), true));
    }

    private Optional<Step> find(Role role, Flows.SeedFlow flow, String id) {
        return steps(role, flow).stream().filter(step -> step.id().equals(id)).findFirst();
    }

    private List<String> stepIds(Role role, Flows.SeedFlow flow) {
        return steps(role, flow).stream().map(Step::id).distinct().toList();
    }
}
