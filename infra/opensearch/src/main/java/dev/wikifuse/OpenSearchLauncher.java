package dev.wikifuse;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.logging.log4j.LogManager;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.transport.Netty4Plugin;

/**
 * Single-node OpenSearch 2.19 for dev/CI, built from Maven Central jars (no distribution
 * tarball can be downloaded here). Started by infra/opensearch-up.sh.
 *
 * Defaults come from WIKIFUSE_OPENSEARCH_* env vars; any {@code key=value} argument is an
 * OpenSearch setting and wins, e.g. {@code http.port=9201 path.data=/tmp/os-data}.
 *
 * We bypass org.opensearch.bootstrap.Bootstrap on purpose: it is what installs the security
 * manager, runs the production bootstrap checks and refuses to run as root. Node itself
 * does none of that, so this also works as root in CI.
 */
public final class OpenSearchLauncher {

    /** Node's plugin-class constructor is protected (it is meant for tests); expose it. */
    static final class PluginNode extends Node {
        PluginNode(Settings settings) {
            super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "wikifuse-dev-node"),
                // In 2.x these are the classes that the modules/ directory of a distribution would load.
                List.of(Netty4Plugin.class,           // http.type / transport.type = netty4
                        CommonAnalysisPlugin.class),  // cjk_bigram, cjk_width, stemmer, snowball, pattern_replace...
                true);                                // forbidPrivateIndexSettings, as in production
        }
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isEmpty() ? dflt : v;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> cli = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("expected key=value, got: " + arg);
            cli.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        // path.data/path.logs default to folders under path.home, whichever way home was given.
        String home = cli.getOrDefault("path.home", env("WIKIFUSE_OPENSEARCH_HOME", System.getProperty("user.dir")));
        Settings.Builder b = Settings.builder()
            .put("cluster.name", "wikifuse-dev")
            .put("node.name", env("WIKIFUSE_OPENSEARCH_NODE_NAME", "wikifuse-dev-node"))
            .put("path.home", home)
            .put("path.data", env("WIKIFUSE_OPENSEARCH_DATA", home + "/data"))
            .put("path.logs", env("WIKIFUSE_OPENSEARCH_LOGS", home + "/logs"))
            .put("discovery.type", "single-node")        // no cluster bootstrapping/election
            .put("network.host", "127.0.0.1")            // loopback only, HTTP and transport
            .put("http.port", env("WIKIFUSE_OPENSEARCH_HTTP_PORT", "9200"))
            .put("transport.port", env("WIKIFUSE_OPENSEARCH_TRANSPORT_PORT", "9300"))
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            // Small CI/dev disks: never turn indices read-only or refuse shard allocation.
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        // (cluster.default_number_of_replicas is read from cluster-state settings only, not from
        // node settings, so opensearch-up.sh sets it to 0 through the _cluster/settings API.)
        // No security plugin is on the classpath, so there is nothing to switch off.
        cli.forEach(b::put);

        Node node = new PluginNode(b.build());
        // OpenSearch threads are daemon threads; Bootstrap keeps the JVM alive with a latch, so do we.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();                               // flushes shards, releases the data-dir lock
                node.awaitClose(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                LogManager.shutdown();                      // log4j's own hook is off (log4j2.properties)
                stopped.countDown();
            }
        }, "wikifuse-opensearch-shutdown"));
        node.start();
        stopped.await();
    }
}
