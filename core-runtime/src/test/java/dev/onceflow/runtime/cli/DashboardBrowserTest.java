package dev.onceflow.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceflow.runtime.checkpoint.CheckpointStats;
import dev.onceflow.runtime.execution.JobClient;
import dev.onceflow.runtime.execution.JobResult;
import dev.onceflow.runtime.execution.KeyedCountJob;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page at {@code GET /}, rendered by a real headless Chromium: after a bounded job, opened at
 * the address with the token, each chart has exactly one point per completed checkpoint, in order,
 * and the status line shows the job's counts; without the right token it shows nothing of the job. Needs {@code /usr/bin/chromium} (Debian's {@code chromium}; {@code bin/test} installs it)
 * or {@code ONCEFLOW_CHROMIUM}; without it the test fails rather than skips, so CI cannot pass
 * without having run it.
 */
@Timeout(120)
class DashboardBrowserTest {

    private static final Pattern POINT = Pattern.compile("<circle [^>]*data-checkpoint-id=\"(\\d+)\"");

    @TempDir
    Path dir;

    private static Path chromium() {
        String configured = System.getenv("ONCEFLOW_CHROMIUM");
        Path binary = Path.of(configured != null ? configured : "/usr/bin/chromium");
        assertThat(Files.isExecutable(binary)).as("%s is not installed (apt-get install -y --no-install-recommends "
                + "chromium, or set ONCEFLOW_CHROMIUM); this test must not be skipped%s", binary,
                System.getenv("CI") != null ? " in CI" : "").isTrue();
        return binary;
    }

    /** The DOM after the page's scripts ran and its first requests were answered. */
    private String render(Path chromium, URI page) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(dir.resolve("chromium-profile"));
        Path stderr = dir.resolve("chromium.log");
        // --virtual-time-budget lets the page's timers and fetches run for 5 virtual seconds before
        // the DOM is dumped: no sleep, and it ends as soon as the budget is spent.
        Process browser = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=5000", "--dump-dom",
                page.toString())
                .redirectError(stderr.toFile()).start();
        byte[] dom = browser.getInputStream().readAllBytes();
        if (!browser.waitFor(60, TimeUnit.SECONDS)) {
            browser.destroyForcibly();
        }
        assertThat(browser.exitValue()).as("chromium's exit status; its log:\n%s", Files.readString(stderr)).isZero();
        return new String(dom, StandardCharsets.UTF_8);
    }

    /** The ids of the points in the {@code <svg>} with id {@code chart}. */
    private static List<Long> points(String dom, String chart) {
        int start = dom.indexOf("<svg id=\"" + chart + "\"");
        assertThat(start).as("chart %s in the page:\n%s", chart, dom).isNotNegative();
        String svg = dom.substring(start, dom.indexOf("</svg>", start));
        List<Long> ids = new ArrayList<>();
        Matcher m = POINT.matcher(svg);
        while (m.find()) {
            ids.add(Long.parseLong(m.group(1)));
        }
        return ids;
    }

    @Test
    void chartsHaveOnePointPerCompletedCheckpoint() throws Exception {
        Path chromium = chromium();
        long rows = 8_000;
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), rows)
                .rowsPerSecond(10_000).executeAsync("plotted");
        JobResult result = client.result().get();
        assertThat(result.status()).isEqualTo(JobResult.Status.FINISHED);
        List<Long> completed = client.checkpointHistory().entries().stream().filter(CheckpointStats::completed)
                .map(CheckpointStats::checkpointId).toList();
        assertThat(completed).as("a line needs two points").hasSizeGreaterThanOrEqualTo(2);

        String dom;
        try (ControlServer server = new ControlServer(client)) {
            dom = render(chromium, server.pageUrl());
        }

        assertThat(points(dom, "duration-chart")).as("points of the duration chart").containsExactlyElementsOf(completed);
        assertThat(points(dom, "size-chart")).as("points of the size chart").containsExactlyElementsOf(completed);
        assertThat(dom).contains("finished: read " + rows + ", wrote " + rows + ", 0 restarts");
    }

    /**
     * The page without the token in its address, or with a wrong one, as a page that is not the
     * one the CLI printed would be: it gets no data of the job and says what to open instead.
     */
    @Test
    void withoutTheRightTokenThePageShowsNothingOfTheJobAndSaysWhy() throws Exception {
        Path chromium = chromium();
        JobClient client = new KeyedCountJob(dir.resolve("checkpoints"), dir.resolve("output"), 2_000)
                .rowsPerSecond(10_000).executeAsync("guarded");
        assertThat(client.result().get().status()).isEqualTo(JobResult.Status.FINISHED);

        String withoutToken;
        String wrongToken;
        String tokenFile;
        try (ControlServer server = new ControlServer(client)) {
            tokenFile = server.tokenFile().toString();
            withoutToken = render(chromium, server.url());
            wrongToken = render(chromium, URI.create(server.url() + "#token=" + "A".repeat(43)));
        }

        String needsToken = "Open the address onceflow run printed: it ends in #token=... (the contents of "
                + "_control.token in the job's checkpoint directory).";
        assertThat(withoutToken).contains("This page needs the job's token. " + needsToken)
                .doesNotContain("finished: read");
        assertThat(points(withoutToken, "duration-chart")).isEmpty();
        assertThat(wrongToken).contains("wrong token; the job's token is in " + tokenFile + "). " + needsToken)
                .doesNotContain("finished: read");
        assertThat(points(wrongToken, "duration-chart")).isEmpty();
        assertThat(points(wrongToken, "size-chart")).isEmpty();
    }
}
