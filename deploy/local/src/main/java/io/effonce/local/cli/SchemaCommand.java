package io.effonce.local.cli;

import io.effonce.local.LocalCli;
import io.effonce.testing.PostgresEndpoint;
import io.effonce.testing.SchemaTool;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code schema}: applies the schema files to the database the environment names. */
@Command(
        name = "schema",
        mixinStandardHelpOptions = true,
        version = "effonce-local 0.1.0-SNAPSHOT",
        description = {
            "Applies deploy/sql (ledger.sql, sink.sql, roles.sql) to the database named by"
                    + " EFFONCE_PG_URL. Idempotent: safe to run again. roles.sql needs a superuser."
        })
public final class SchemaCommand implements Callable<Integer> {

    @ParentCommand private LocalCli parent;
    @Spec private CommandSpec spec;

    @Option(
            names = "--files",
            split = ",",
            paramLabel = "FILE",
            description = "Schema files to apply, in order (default: ${DEFAULT-VALUE}).",
            defaultValue = "ledger.sql,sink.sql,roles.sql")
    private List<String> files;

    @Override
    public Integer call() {
        PostgresEndpoint db = parent.database();
        SchemaTool.apply(db, files);
        spec.commandLine().getOut().println("Applied " + String.join(", ", files) + " to " + db);
        return 0;
    }
}
