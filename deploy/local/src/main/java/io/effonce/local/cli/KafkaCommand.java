package io.effonce.local.cli;

import io.effonce.testing.EmbeddedKafka;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kafka}: runs a single-node Kafka broker until interrupted, for trying the deploy path. */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description = {
            "Starts a single-node Kafka broker (KRaft, in this JVM, replication factor 1, topics"
                    + " created on first use) serving clients on 127.0.0.1, prints the environment"
                    + " to reach it and runs until Ctrl-C. Its data is deleted on stop."
        })
public final class KafkaCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "19092",
            description = "Port clients connect to (default: ${DEFAULT-VALUE}).")
    private int port;

    @Mixin private EnvFile envFile;

    @Override
    public Integer call() throws InterruptedException {
        if (port <= 0 || port > 65_535) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--port must be a port number, 1 to 65535; was " + port);
        }
        EmbeddedKafka broker = startQuietly();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    broker.close();
                                    stopped.countDown();
                                }));
        envFile.write(Map.of("EFFONCE_KAFKA_BOOTSTRAP", broker.bootstrapServers()));
        PrintWriter out = spec.commandLine().getOut();
        out.println("Kafka is up. In another shell:");
        out.println("  export EFFONCE_KAFKA_BOOTSTRAP=" + broker.bootstrapServers());
        out.println("Ctrl-C stops it (and deletes its data).");
        out.flush();
        stopped.await();
        return 0;
    }

    /**
     * Starts the broker without the bootstrap metadata Kafka's storage formatter prints to standard
     * output (a person reads the address, not the feature levels); a failure is still thrown.
     */
    private EmbeddedKafka startQuietly() {
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream()));
        try {
            return EmbeddedKafka.start(port);
        } finally {
            System.setOut(stdout);
        }
    }
}
