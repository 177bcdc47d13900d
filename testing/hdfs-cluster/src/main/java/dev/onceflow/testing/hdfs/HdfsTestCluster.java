package dev.onceflow.testing.hdfs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A real HDFS for tests: Hadoop's {@link MiniDFSCluster}, one name node and data nodes in this
 * JVM, with every listener on 127.0.0.1 and a port chosen free at start, and all data under a
 * directory of the caller's.
 *
 * <p>Jobs under test usually run in child JVMs: they reach this cluster through {@link #uri()}
 * alone (no configuration files needed), so they can be SIGKILLed while the cluster keeps its
 * data. Nodes can be restarted on the same ports to inject HDFS-side faults.
 *
 * <pre>{@code
 * try (HdfsTestCluster hdfs = HdfsTestCluster.start(tempDir, 1)) {
 *     String out = hdfs.uri() + "/out";
 * }
 * }</pre>
 */
public final class HdfsTestCluster implements AutoCloseable {

    /** Starts tried when a chosen port is taken before it is bound. */
    private static final int START_ATTEMPTS = 3;

    private final MiniDFSCluster cluster;

    private HdfsTestCluster(MiniDFSCluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts a cluster whose name node and {@code dataNodes} data nodes keep their data under
     * {@code baseDirectory}; takes about 5 seconds.
     */
    public static HdfsTestCluster start(Path baseDirectory, int dataNodes) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(baseDirectory, dataNodes);
            } catch (IOException e) {
                // A port found free can be taken before the node binds it, by any socket on the
                // machine, the cluster's own client connections included. A failed start has
                // shut down what it started, so trying again with new ports is safe.
                if (attempt == START_ATTEMPTS || !causedByBind(e)) {
                    throw e;
                }
                System.err.println("HDFS test cluster: a chosen port was taken before it was bound (" + e.getMessage()
                        + "); starting again on new ports");
            }
        }
    }

    private static boolean causedByBind(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    private static HdfsTestCluster startOnce(Path baseDirectory, int dataNodes) throws IOException {
        Configuration conf = new Configuration();
        // MiniDFSCluster reads this property, not only the builder's argument, for some of its files.
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, baseDirectory.toAbsolutePath().toString());
        conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
        conf.set("dfs.namenode.http-bind-host", "127.0.0.1");
        // Data nodes pick their own ports unless pinned; "0" would bind the wildcard address.
        conf.set("dfs.datanode.address", "127.0.0.1:" + freePort());
        conf.set("dfs.datanode.http.address", "127.0.0.1:" + freePort());
        conf.set("dfs.datanode.ipc.address", "127.0.0.1:" + freePort());
        conf.setInt("dfs.datanode.http.internal-proxy.port", freePort());
        conf.setInt("dfs.replication", Math.min(dataNodes, 3));
        // Writers that hsync often (the filesystem sink, at every checkpoint) find little unwritten
        // data to force to disk when data nodes start writing back as data arrives.
        conf.setBoolean("dfs.datanode.sync.behind.writes", true);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, baseDirectory.toAbsolutePath().toFile())
                .numDataNodes(dataNodes)
                .nameNodePort(freePort())
                .nameNodeHttpPort(freePort())
                .checkDataNodeAddrConfig(true)
                .format(true)
                .build();
        try {
            cluster.waitActive();
        } catch (IOException | RuntimeException e) {
            cluster.shutdown(true);
            throw e;
        }
        return new HdfsTestCluster(cluster);
    }

    /** {@code hdfs://127.0.0.1:<port>}: the file system's address, usable from any JVM on this machine. */
    public URI uri() {
        // MiniDFSCluster says "localhost", which may resolve to ::1 where nothing listens.
        return URI.create("hdfs://127.0.0.1:" + cluster.getNameNodePort());
    }

    /** A client configuration whose default file system is this cluster. */
    public Configuration configuration() {
        Configuration conf = new Configuration(cluster.getConfiguration(0));
        conf.set("fs.defaultFS", uri().toString());
        return conf;
    }

    /** A client of this cluster, shared and closed with it. */
    public DistributedFileSystem fileSystem() {
        try {
            return cluster.getFileSystem();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new client of this cluster with its own lease holder name: a second "process" for lease tests. */
    public FileSystem newClient() throws IOException {
        return FileSystem.newInstance(uri(), configuration());
    }

    /**
     * Restarts the name node on the same port and waits until it is active and out of safe mode;
     * clients retry their calls meanwhile.
     */
    public void restartNameNode() throws IOException {
        cluster.restartNameNode(true);
        cluster.waitActive();
    }

    /** Stops data node {@code index} and starts it again on the same ports, waiting until it has reported in. */
    public void restartDataNode(int index) throws IOException {
        if (!cluster.restartDataNode(index, true)) {
            throw new IOException("data node " + index + " did not restart");
        }
        cluster.waitActive();
    }

    /** The directory of the name node's and data nodes' files. */
    public File baseDirectory() {
        return new File(cluster.getDataDirectory()).getParentFile();
    }

    @Override
    public void close() {
        cluster.shutdown(true);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
