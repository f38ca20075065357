package org.rdmalab.cli;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception escaping a command into one line on stderr and exit code 1; the stack trace
 * only with {@code --verbose}.
 */
final class ErrorHandler implements IExecutionExceptionHandler {

    /**
     * A usage error: on stderr the reason in one line (with picocli's suggestion for a misspelt
     * option or command), the command's synopsis, and where its help is; exit 2.
     */
    static int usageError(CommandLine.ParameterException exception, String[] args) {
        CommandLine commandLine = exception.getCommandLine();
        java.io.PrintWriter err = commandLine.getErr();
        err.println("rdma-lab: " + exception.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(exception, err);
        err.println("Usage: " + commandLine.getHelp().abbreviatedSynopsis().strip());
        err.println("See '" + commandLine.getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return 2;
    }

    @Override
    public int handleExecutionException(Exception exception, CommandLine commandLine, ParseResult parseResult) {
        boolean verbose = parseResult.hasMatchedOption("--verbose")
                || parseResult.subcommands().stream().anyMatch(sub -> sub.hasMatchedOption("--verbose"));
        String message = exception.getMessage() == null ? exception.toString() : exception.getMessage();
        commandLine.getErr().println("rdma-lab: " + message);
        if (verbose) {
            exception.printStackTrace(commandLine.getErr());
        }
        commandLine.getErr().flush();
        if (exception instanceof IllegalArgumentException) {
            return 2;
        }
        return 1;
    }
}
