package dev.onceflow.runtime.cli;

import com.sun.net.httpserver.Headers;
import dev.onceflow.runtime.checkpoint.CheckpointFileSystem;
import dev.onceflow.runtime.checkpoint.CheckpointLocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Who may use a running job's control endpoint. It listens on 127.0.0.1, but that keeps out
 * neither the machine's other users nor the pages open in its user's browser, and a savepoint with
 * {@code stop=true} ends the job. A request is served only if
 * <ul>
 * <li>its {@code Host} is a loopback name with the endpoint's port: a page of {@code evil.example}
 *     whose name was re-resolved to 127.0.0.1 (DNS rebinding) sends {@code Host: evil.example};
 * <li>its {@code Origin}, if any, is the endpoint itself: a page of another origin may send
 *     requests to 127.0.0.1 (CSRF), and the browser names that page's origin;
 * <li>it carries the job's token as {@code Authorization: Bearer <token>}, where the endpoint
 *     asks for it (everything but the page itself, which holds no data of the job). A header, not a
 *     cookie: a browser adds cookies to other sites' requests by itself, never this header.
 * </ul>
 * The token is 32 bytes from {@link SecureRandom}, base64url, made anew for each run, and written
 * to {@value #TOKEN_FILE} beside {@code _control.json} readable by the job's user only (CFS-7), so
 * whoever can read it may control the job: that user, and {@code onceflow savepoint} run by them.
 * It is never logged. Public for the Flink conformance runner, whose endpoint serves the same
 * {@code onceflow savepoint}.
 */
public final class ControlAccess implements AutoCloseable {

    public static final String TOKEN_FILE = "_control.token";
    private static final int TOKEN_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] token;
    private final int port;
    private final Set<String> hosts;
    private final Set<String> origins;
    private final CheckpointFileSystem fs;
    private final CheckpointLocation tokenFile;

    private ControlAccess(byte[] token, int port, CheckpointFileSystem fs, CheckpointLocation tokenFile) {
        this.token = token;
        this.port = port;
        this.hosts = Set.of("127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port);
        this.origins = Set.of("http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port);
        this.fs = fs;
        this.tokenFile = tokenFile;
    }

    /**
     * A new token for the endpoint on {@code port} of the job with checkpoints in
     * {@code jobDirectory}, written there owner-only before the endpoint is announced in
     * {@code _control.json}, so that whoever finds the endpoint finds its token too.
     */
    public static ControlAccess create(CheckpointLocation jobDirectory, int port) throws IOException {
        byte[] random = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(random);
        byte[] token = Base64.getUrlEncoder().withoutPadding().encode(random);
        CheckpointFileSystem fs = CheckpointFileSystem.of(jobDirectory);
        fs.mkdirs(jobDirectory);
        CheckpointLocation file = jobDirectory.resolve(TOKEN_FILE);
        fs.writeAtomicallyOwnerOnly(file, token);
        return new ControlAccess(token, port, fs, file);
    }

    /** The token of the job running with checkpoints in {@code jobDirectory}, for its user's CLI. */
    public static String readToken(CheckpointLocation jobDirectory) throws IOException {
        CheckpointLocation file = jobDirectory.resolve(TOKEN_FILE);
        try {
            return new String(CheckpointFileSystem.of(jobDirectory).read(file), StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            throw new IOException("cannot read the job's token: " + file + " does not exist");
        } catch (AccessDeniedException e) {
            throw new IOException("cannot read the job's token in " + file + ": only the user who started the job may control it");
        }
    }

    /** Why a request is not served: its status (401, 403) and a one-line reason. */
    public record Refusal(int status, String error) {
    }

    /**
     * Why a request with {@code headers} must not be served whatever it asks for (a foreign
     * {@code Host} or {@code Origin}), or null if it may be.
     */
    public Refusal checkSender(Headers headers) {
        List<String> host = headers.get("Host");
        if (host == null || host.size() != 1 || !hosts.contains(host.get(0).toLowerCase(Locale.ROOT))) {
            return new Refusal(403, "refused: " + (host == null ? "no Host header" : "Host " + String.join(", ", host)
                    + " is not this endpoint") + "; use http://127.0.0.1:" + port + "/");
        }
        List<String> origin = headers.get("Origin");
        if (origin != null && (origin.size() != 1 || !origins.contains(origin.get(0).toLowerCase(Locale.ROOT)))) {
            return new Refusal(403, "refused: a page of another origin (" + String.join(", ", origin)
                    + ") may not use this endpoint");
        }
        return null;
    }

    /** Why a request with {@code headers} must not be served by an endpoint that needs the token, or null. */
    public Refusal checkToken(Headers headers) {
        List<String> authorization = headers.get("Authorization");
        if (authorization == null || authorization.size() != 1) {
            return new Refusal(401, "this endpoint needs the job's token: Authorization: Bearer <the contents of "
                    + tokenFile + ">");
        }
        String value = authorization.get(0);
        String presented = value.regionMatches(true, 0, "Bearer ", 0, 7) ? value.substring(7).trim() : "";
        // In constant time: how long a comparison takes must not tell how much of a guess was right.
        if (!MessageDigest.isEqual(presented.getBytes(StandardCharsets.US_ASCII), token)) {
            return new Refusal(401, "wrong token; the job's token is in " + tokenFile);
        }
        return null;
    }

    /** The token, for the address of the page that the CLI prints to its user's terminal. */
    String token() {
        return new String(token, StandardCharsets.US_ASCII);
    }

    CheckpointLocation tokenFile() {
        return tokenFile;
    }

    /** Deletes the token file; the token dies with the run anyway, a new run makes another. */
    @Override
    public void close() {
        try {
            fs.deleteRecursively(tokenFile);
        } catch (IOException ignored) {
            // owner-only, and no endpoint accepts it any more
        }
    }
}
