package dev.onceflow.connector.postgrescdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/** Another reader of a slot, in a process of its own: streams from it until killed. */
public final class SlotHolder {

    public static void main(String[] args) throws Exception {
        Properties properties = new Properties();
        PGProperty.USER.set(properties, "postgres");
        PGProperty.PASSWORD.set(properties, args[1]);
        PGProperty.REPLICATION.set(properties, "database");
        PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "9.4");
        PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
        try (Connection connection = DriverManager.getConnection(args[0], properties)) {
            PGReplicationStream stream = connection.unwrap(PGConnection.class).getReplicationAPI()
                    .replicationStream().logical().withSlotName(args[2])
                    .withSlotOption("proto_version", 1).withSlotOption("publication_names", "none").start();
            while (true) {
                stream.read();
            }
        }
    }
}
