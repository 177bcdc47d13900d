package dev.onceflow.runtime.cli;

/**
 * Bad input: a job file that is unreadable or invalid, or a command-line argument that does not
 * fit it. The message is one line, printed as it is, and the CLI exits with status 2. This type
 * (with {@link dev.onceflow.spi.factory.OptionException} from connectors) is what marks input as
 * bad: any other exception reaching the CLI is a bug and is reported as one.
 */
public class JobFileException extends Exception {

    private static final long serialVersionUID = 1L;

    public JobFileException(String message) {
        super(message);
    }
}
