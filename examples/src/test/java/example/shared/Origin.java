package example.shared;

/**
 * A class that the test plugins of {@code PluginTest} bundle too, each with its own {@link #name()}:
 * a plugin that sees this copy instead of its own was not loaded child-first.
 */
public final class Origin {

    private Origin() {
    }

    /** A method, not a constant, which the compiler would copy into its callers. */
    public static String name() {
        return "classpath";
    }
}
