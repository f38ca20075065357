package org.rdmalab.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Entry point of {@code rdma-lab.jar}: with no command it opens the GUI, otherwise it runs one
 * command of the command-line contract (see the README).
 */
@Command(
        name = "rdma-lab",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "RDMA Lab: step through RDMA verbs on real devices or the built-in software RoCE v2 device.",
        subcommands = {
            DevicesCommand.class,
            TransitionCommand.class,
            LoopbackCommand.class,
            DemoCommand.class,
            BenchCommand.class,
            DoctorCommand.class,
            PcapCommand.class,
            GuiCommand.class,
        })
public final class Main implements Runnable {

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public void run() {
        GuiCommand.launch(new String[0]);
    }

    /** Runs the command line and returns its exit code (0 ok, 1 failure, 2 usage error). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line (error handlers installed), for callers that redirect its output. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new Main());
        commandLine.setExecutionExceptionHandler(new ErrorHandler());
        commandLine.setParameterExceptionHandler(ErrorHandler::usageError);
        return commandLine;
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Reads the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"RDMA Lab " + (version == null ? "(development build)" : version)};
        }
    }
}
