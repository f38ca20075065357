package org.rdmalab.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpState;
import org.rdmalab.verbs.QpTransitions;
import org.rdmalab.verbs.QpType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code transition}: is a modify_qp from one state to another with this mask valid? */
@Command(name = "transition", mixinStandardHelpOptions = true,
        description = {
            "Checks an ibv_modify_qp transition against the QP state table.",
            "Prints 'valid' or 'invalid' and one line per problem; exit 0 valid, 1 invalid, 2 usage error."
        })
final class TransitionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--qp-type", defaultValue = "RC", description = "RC, UC or UD (default ${DEFAULT-VALUE}).")
    String qpType;

    @Option(names = "--from", required = true, description = "Current state: RESET, INIT, RTR, RTS, SQD, SQE, ERR.")
    String from;

    @Option(names = "--to", required = true, description = "Target state.")
    String to;

    @Option(names = "--mask", required = true,
            description = "Attribute mask: hex (0x1b1) or names (STATE,PKEY_INDEX,PORT,ACCESS_FLAGS).")
    String mask;

    @Override
    public Integer call() {
        QpType type = parse(() -> QpType.parse(qpType));
        if (type != QpType.RC && type != QpType.UC && type != QpType.UD) {
            throw new ParameterException(spec.commandLine(), "--qp-type must be RC, UC or UD");
        }
        QpState fromState = parse(() -> QpState.parse(from));
        QpState toState = parse(() -> QpState.parse(to));
        int maskValue = parse(() -> QpAttrMask.parse(mask));
        QpTransitions.Check check = QpTransitions.check(type, fromState, toState, maskValue);
        PrintWriter out = spec.commandLine().getOut();
        out.println(check.valid() ? "valid" : "invalid");
        for (String problem : check.problems()) {
            out.println(problem);
        }
        if (check.valid()) {
            QpTransitions.Rule rule = QpTransitions.rule(type, fromState, toState);
            out.println("mask: " + String.format("0x%x", maskValue) + " = " + QpAttrMask.names(maskValue));
            if (rule != null && rule.optional() != 0) {
                out.println("optional: " + QpAttrMask.names(rule.optional()));
            }
        }
        out.flush();
        return check.valid() ? 0 : 1;
    }

    private <T> T parse(java.util.function.Supplier<T> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
