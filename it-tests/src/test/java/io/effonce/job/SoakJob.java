package io.effonce.job;

import io.effonce.it.testutils.StoreFaults;
import io.effonce.it.testutils.StoreFaults.RuleOff;
import io.effonce.it.testutils.TakeoverHolds;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job as the soak submits it: the shipped pipeline, source and side tables, over the deployed
 * store wrapped so that the nemesis can hold its takeovers ({@link TakeoverHolds}). Without a hold
 * it is the shipped job. {@link WithoutStaleDeletion} and {@link WithoutStaleness} switch a rule
 * off at the same store.
 */
public final class SoakJob {

    private SoakJob() {}

    public static void main(String[] args) throws Exception {
        run(args, RuleOff.NONE);
    }

    static void run(String[] args, RuleOff off) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        Configuration config = JobConfiguration.merge(env.getConfiguration(), args);
        env.configure(config);
        LedgerPipeline.Endpoints shipped = LedgerTotalsJob.endpoints(config);
        LedgerPipeline.build(
                env,
                config,
                new LedgerPipeline.Endpoints(
                        shipped.source(),
                        StoreFaults.soak(LedgerTotalsJob.postgres(config), off),
                        shipped.lateEvents(),
                        shipped.deadLetters()));
        env.execute(
                off == RuleOff.NONE
                        ? "effonce ledger totals (soak)"
                        : "effonce ledger totals (soak) with " + off + " off");
    }
}
