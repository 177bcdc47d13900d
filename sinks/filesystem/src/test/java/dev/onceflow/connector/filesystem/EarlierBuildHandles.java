package dev.onceflow.connector.filesystem;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Handles as the checkpoints of earlier builds hold them, written byte by byte as those builds
 * did, so the tests do not depend on the current serializer's writing code.
 */
final class EarlierBuildHandles {

    private EarlierBuildHandles() {
    }

    /** Version 1: one part file, fully qualified paths, no count. */
    static byte[] versionOne(PartFile part) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writePart(part, out);
        }
        return bytes.toByteArray();
    }

    /** Version 2: the number of part files, then each with fully qualified paths. */
    static byte[] versionTwo(List<PartFile> parts) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(parts.size());
            for (PartFile part : parts) {
                writePart(part, out);
            }
        }
        return bytes.toByteArray();
    }

    private static void writePart(PartFile part, DataOutputStream out) throws IOException {
        for (String path : List.of(part.inProgressPath(), part.finalPath())) {
            byte[] utf8 = path.getBytes(StandardCharsets.UTF_8);
            out.writeInt(utf8.length);
            out.write(utf8);
        }
        out.writeLong(part.length());
    }
}
