package dev.onceflow.connector.jdbc;

import dev.onceflow.spi.serialization.Serializers;
import dev.onceflow.spi.serialization.SimpleVersionedSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@link JdbcTransaction} handles into checkpoints. Version 1: the gid (int byte length +
 * UTF-8 bytes), then the row count (long).
 */
public final class JdbcTransactionSerializer implements SimpleVersionedSerializer<JdbcTransaction> {

    /** The only instance; serializers are stateless (SER-4). */
    public static final JdbcTransactionSerializer INSTANCE = new JdbcTransactionSerializer();

    private static final int VERSION = 1;

    private JdbcTransactionSerializer() {
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public byte[] serialize(JdbcTransaction transaction) throws IOException {
        return Serializers.write(out -> {
            byte[] gid = transaction.gid().getBytes(StandardCharsets.UTF_8);
            out.writeInt(gid.length);
            out.write(gid);
            out.writeLong(transaction.rows());
        });
    }

    @Override
    public JdbcTransaction deserialize(int version, byte[] serialized) throws IOException {
        Serializers.checkVersion(VERSION, version, "jdbc transaction");
        return Serializers.read(serialized, in -> {
            byte[] gid = new byte[Serializers.readLength(in, "jdbc transaction gid")];
            in.readFully(gid);
            long rows = in.readLong();
            if (rows < 0) {
                throw new IOException("corrupt jdbc transaction: negative row count " + rows);
            }
            return new JdbcTransaction(new String(gid, StandardCharsets.UTF_8), rows);
        });
    }
}
