package io.effonce.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.demo.Demo;
import io.effonce.it.testutils.WorkDirs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The one-command demo ({@code ./effonce demo}) as the README runs it, on a sharded ledger: its own
 * PostgreSQL and Kafka, two ledger databases each with its own relay, the job jar on a local
 * cluster of OS processes, a TaskManager killed mid-checkpoint. The demo exits 0 only when the sink
 * plus its late events equal both shards' ledgers together (its oracle, printed as {@code N
 * merchant-days, 0 differences}), so its exit code is the verdict.
 */
class DemoITCase {

    @Test
    void theDemoOverTwoLedgerShardsEndsExactAfterATaskManagerKill() {
        int exit =
                demo(
                        "demo",
                        "--shards",
                        "2",
                        "--payments",
                        "6000",
                        "--rate",
                        "600",
                        "--kills",
                        "1",
                        "--page-port",
                        "0",
                        "--settle-timeout",
                        "PT5M");
        assertThat(exit).as("the demo's exit code (0: totals equal the ledgers)").isZero();
    }

    /**
     * {@code --ledger-failover}: the ledger's primary killed mid-workload, its standby promoted,
     * the relay started again on its failover slot, the workload going on against the new primary.
     * Tagged {@code long}: {@code LedgerFailoverITCase} runs the same failover every time.
     */
    @Test
    @Tag("long")
    void theDemoWhoseLedgerFailsOverEndsExact() {
        int exit =
                demo(
                        "demo-ledger-failover",
                        "--ledger-failover",
                        "--payments",
                        "6000",
                        "--rate",
                        "600",
                        "--kills",
                        "0",
                        "--page-port",
                        "0",
                        "--settle-timeout",
                        "PT5M");
        assertThat(exit)
                .as("the demo's exit code (0: totals equal the promoted standby's ledger)")
                .isZero();
    }

    /** Runs the demo with the job jar, in a fresh work directory named {@code name}. */
    private static int demo(String name, String... options) {
        String[] args = new String[options.length + 4];
        args[0] = "--job-jar";
        args[1] = System.getProperty("effonce.job.jar");
        args[2] = "--work-dir";
        args[3] = WorkDirs.fresh(name).toString();
        System.arraycopy(options, 0, args, 4, options.length);
        return new CommandLine(new Demo()).execute(args);
    }
}
