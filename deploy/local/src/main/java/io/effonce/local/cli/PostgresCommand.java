package io.effonce.local.cli;

import io.effonce.testing.EmbeddedPostgres;
import io.effonce.testing.PostgresEndpoint;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code postgres}: runs an embedded PostgreSQL until interrupted, for trying the tools. */
@Command(
        name = "postgres",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description = {
            "Starts an embedded PostgreSQL (wal_level=logical) on 127.0.0.1, prints the"
                    + " environment to reach it and runs until Ctrl-C."
        })
public final class PostgresCommand implements Callable<Integer> {

    @Spec private CommandSpec spec;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "54329",
            description = "Port to listen on, 0 for a free one (default: ${DEFAULT-VALUE}).")
    private int port;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description =
                    "Data directory, kept after stop so a restart finds the data (default: a"
                            + " temporary directory, deleted on stop).")
    private Path dataDir;

    @Mixin private EnvFile envFile;

    @Override
    public Integer call() throws InterruptedException {
        EmbeddedPostgres server =
                dataDir == null
                        ? EmbeddedPostgres.start(port)
                        : EmbeddedPostgres.start(dataDir, port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    server.close();
                                    stopped.countDown();
                                }));
        PostgresEndpoint admin = server.endpoint();
        Map<String, String> env = new LinkedHashMap<>();
        env.put("EFFONCE_PG_URL", admin.jdbcUrl());
        env.put("EFFONCE_PG_USER", admin.user());
        env.put("EFFONCE_PG_PASSWORD", admin.password());
        envFile.write(env);
        PrintWriter out = spec.commandLine().getOut();
        out.println("PostgreSQL is up. In another shell:");
        env.forEach((name, value) -> out.println("  export " + name + "=" + value));
        out.println("Ctrl-C stops it.");
        out.flush();
        stopped.await();
        return 0;
    }
}
