package io.effonce.k8s;

import io.effonce.job.LedgerPipeline;
import io.effonce.job.LedgerTotalsJob;
import io.effonce.sink.FlushableSinkOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;

/** What the job knows, asked of the job itself: its options and the uids its graph sets. */
final class JobFacts {

    private static final Pattern HELP_OPTION = Pattern.compile("(?m)^  --(\\S+)$");

    private JobFacts() {}

    /** The option keys {@code LedgerTotalsJob --help} lists: exactly what its parser accepts. */
    static Set<String> options() {
        PrintStream out = System.out;
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(help, true, StandardCharsets.UTF_8));
            LedgerTotalsJob.main(new String[] {"--help"});
        } catch (Exception e) {
            throw new IllegalStateException("LedgerTotalsJob --help failed", e);
        } finally {
            System.setOut(out);
        }
        Set<String> keys = new TreeSet<>();
        Matcher m = HELP_OPTION.matcher(help.toString(StandardCharsets.UTF_8));
        while (m.find()) {
            keys.add(m.group(1));
        }
        if (keys.isEmpty()) {
            throw new IllegalStateException("LedgerTotalsJob --help listed no option: " + help);
        }
        return keys;
    }

    /**
     * Builds the job's graph as {@code main} does, from the cluster's configuration with the
     * program arguments on top, and returns every operator uid in it. Fails, naming the option, if
     * a value cannot be read or a required option is missing.
     */
    static Set<String> uids(Map<String, String> cluster, Map<String, String> args) {
        Configuration config = Configuration.fromMap(cluster);
        config.addAll(Configuration.fromMap(args));
        // The graph alone: no sink database here to number the deployment.
        config.set(FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        LedgerPipeline.build(env, config, LedgerTotalsJob.endpoints(config));
        return env.getStreamGraph().getStreamNodes().stream()
                .map(StreamNode::getTransformationUID)
                .filter(Objects::nonNull)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
