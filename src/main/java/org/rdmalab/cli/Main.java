package org.rdmalab.cli;

import java.util.List;
import java.util.Optional;
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
        description = "RDMA Lab: step through RDMA verbs on real devices or the built-in software RoCE v2 device.")
public final class Main implements Runnable {

    /** The commands, in the order the help lists them. */
    private static final List<Class<?>> COMMANDS = List.of(
            DevicesCommand.class,
            TransitionCommand.class,
            LoopbackCommand.class,
            DemoCommand.class,
            BenchCommand.class,
            DoctorCommand.class,
            PcapCommand.class,
            GuiCommand.class,
            ExerciseCommand.class);

    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public void run() {
        GuiCommand.launch(new String[0]);
    }

    /** Runs the command line and returns its exit code (0 ok, 1 failure, 2 usage error). */
    public static int execute(String... args) {
        return commandLineFor(args).execute(args);
    }

    /** The configured command line with every command (error handlers installed), for callers that redirect its output. */
    public static CommandLine commandLine() {
        return commandLine(COMMANDS);
    }

    /**
     * The configured command line for running {@code args}: with only the command they name, where
     * they name one; with none for no arguments at all (the window); otherwise with every command
     * (the top command's help, a misspelt command and its suggestions). Picocli reads each
     * command's options by reflection when the command is added, which for all of them took
     * 120–300 ms of every start (docs/performance.md); a command added alone parses and prints
     * exactly as it does among the others.
     */
    public static CommandLine commandLineFor(String... args) {
        if (args.length == 0) {
            return commandLine(List.of());
        }
        return commandLine(named(args).map(List::<Class<?>>of).orElse(COMMANDS));
    }

    /**
     * The command {@code args} name: the first argument that is not an option, where it is a
     * command's name. The top command's own options ({@code --verbose}, {@code -h}, {@code -V})
     * take no value, so that argument is the command's name wherever the line is valid.
     */
    static Optional<Class<?>> named(String... args) {
        for (String arg : args) {
            if (!arg.startsWith("-")) {
                return COMMANDS.stream().filter(command -> command.getAnnotation(Command.class).name().equals(arg))
                        .findFirst();
            }
        }
        return Optional.empty();
    }

    private static CommandLine commandLine(List<Class<?>> commands) {
        CommandLine commandLine = new CommandLine(new Main());
        for (Class<?> command : commands) {
            commandLine.addSubcommand(command);
        }
        commandLine.setExecutionExceptionHandler(new ErrorHandler());
        commandLine.setParameterExceptionHandler(ErrorHandler::usageError);
        shareVersion(commandLine, new Version());
        return commandLine;
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /**
     * What {@code --version} and {@code -V} print, for the top command and every subcommand: the
     * POM's version and the commit it was built from (from {@code build.properties}, written by the
     * build), then the Java and JavaFX versions it runs on.
     */
    static final class Version implements CommandLine.IVersionProvider {

        static final String RESOURCE = "build.properties";

        @Override
        public String[] getVersion() {
            java.util.Properties build = new java.util.Properties();
            try (java.io.InputStream in = Main.class.getResourceAsStream(RESOURCE)) {
                if (in != null) {
                    build.load(in);
                }
            } catch (java.io.IOException e) {
                // Said below as an unknown version and commit.
            }
            return lines(build, Runtime.version().toString(), System.getProperty("java.vendor", "unknown vendor"),
                    javaFxVersion());
        }

        /** The lines for these build facts and runtime versions. */
        static String[] lines(java.util.Properties build, String java, String vendor, String javaFx) {
            String version = build.getProperty("git.build.version", "(version unknown)");
            String commit = build.getProperty("git.commit.id.abbrev");
            String built = commit == null ? "commit unknown" : "commit " + commit
                    + ("true".equals(build.getProperty("git.dirty")) ? " with local changes" : "")
                    + Optional.ofNullable(build.getProperty("git.commit.time")).map(day -> " of " + day).orElse("");
            return new String[] {
                "RDMA Lab " + version + " (" + built + ")",
                "Java " + java + " (" + vendor + "), JavaFX " + javaFx,
            };
        }

        /** The JavaFX runtime on the class path, read without starting it. */
        private static String javaFxVersion() {
            try {
                return com.sun.javafx.runtime.VersionInfo.getRuntimeVersion();
            } catch (LinkageError e) {
                return "not found";
            }
        }
    }

    /** Gives every subcommand, to any depth, the top command's version lines for its own {@code -V}. */
    private static void shareVersion(CommandLine commandLine, CommandLine.IVersionProvider version) {
        for (CommandLine sub : commandLine.getSubcommands().values()) {
            sub.getCommandSpec().versionProvider(version);
            shareVersion(sub, version);
        }
    }
}
