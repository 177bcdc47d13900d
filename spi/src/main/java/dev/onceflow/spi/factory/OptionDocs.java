package dev.onceflow.spi.factory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Renders declared options as the Markdown tables in {@code docs/connectors/}, so the docs are
 * generated from the declarations rather than kept in sync by hand. Connector modules check their
 * page against it in a test.
 */
public final class OptionDocs {

    private OptionDocs() {
    }

    /**
     * One row per option, in declaration order: key, type, default (or "required"), and the
     * description followed by what values are accepted. Ends with a newline.
     */
    public static String markdownTable(List<Option<?>> options) {
        StringBuilder table = new StringBuilder("| Option | Type | Default | Description |\n|---|---|---|---|\n");
        for (Option<?> option : options) {
            String fallback = option.isRequired() ? "required" : option.defaultText().map(v -> "`" + v + "`").orElse("—");
            table.append("| `").append(option.key()).append("` | ").append(option.typeName()).append(" | ")
                    .append(fallback).append(" | ").append(cell(option.description()));
            if (!option.accepted().isEmpty() && !option.accepted().equals("any text")) {
                table.append(" Accepts ").append(cell(option.accepted())).append('.');
            }
            table.append(" |\n");
        }
        return table.toString();
    }

    /**
     * {@code document} with the text between the lines {@code <!-- options:begin -->} and
     * {@code <!-- options:end -->} replaced by {@link #markdownTable(List) the table} of
     * {@code options}. A connector's docs test compares a page with this and fails (or, asked to,
     * rewrites the page) when they differ.
     *
     * @throws IllegalArgumentException if the markers are missing or out of order
     */
    public static String withTable(String document, List<Option<?>> options) {
        int begin = document.indexOf(BEGIN);
        int end = document.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the page needs a line " + BEGIN + " and, after it, a line " + END
                    + " where the options table goes");
        }
        return document.substring(0, begin + BEGIN.length()) + "\n" + markdownTable(options) + document.substring(end);
    }

    /**
     * Checks that the options table of the page {@code page} is {@link #withTable generated} from
     * {@code options}, for a connector's docs test. With the system property
     * {@code onceflow.docs.update=true} it rewrites an outdated table instead.
     *
     * @throws AssertionError if the table is out of date, naming the page and how to regenerate it
     */
    public static void checkPage(Path page, List<Option<?>> options) throws IOException {
        String text = Files.readString(page, StandardCharsets.UTF_8);
        String expected = withTable(text, options);
        if (expected.equals(text)) {
            return;
        }
        if (Boolean.getBoolean("onceflow.docs.update")) {
            Files.writeString(page, expected, StandardCharsets.UTF_8);
            return;
        }
        throw new AssertionError(page.normalize() + ": the options table is out of date; regenerate it by running "
                + "this test with -Donceflow.docs.update=true");
    }

    private static final String BEGIN = "<!-- options:begin -->";
    private static final String END = "<!-- options:end -->";

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
