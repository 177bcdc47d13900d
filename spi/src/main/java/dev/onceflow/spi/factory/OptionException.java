package dev.onceflow.spi.factory;

/**
 * A connector option is missing, unknown or invalid. The message is one line that names the
 * connector, the option and what is accepted; the CLI prints it as it is, without a stack trace.
 */
public class OptionException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public OptionException(String message) {
        super(message);
    }
}
