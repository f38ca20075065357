package org.rdmalab.cli;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception escaping a command into one line on stderr and exit code 1; the stack trace
 * only with {@code --verbose}.
 */
final class ErrorHandler implements IExecutionExceptionHandler {

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
