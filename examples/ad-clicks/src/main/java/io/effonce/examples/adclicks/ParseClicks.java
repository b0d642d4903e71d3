package io.effonce.examples.adclicks;

import java.util.Optional;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lines of the topic to clicks. A line that is not a click is counted ({@code malformedClicks}) and
 * logged with what it was, never a failure: one bad line must not stop the campaign counts.
 */
final class ParseClicks extends ProcessFunction<String, Click> {

    private static final Logger LOG = LoggerFactory.getLogger(ParseClicks.class);

    private transient Counter malformed;

    @Override
    public void open(OpenContext context) {
        malformed = getRuntimeContext().getMetricGroup().counter("malformedClicks");
    }

    @Override
    public void processElement(String line, Context ctx, Collector<Click> out) {
        Optional<Click> click = Click.parse(line);
        if (click.isPresent()) {
            out.collect(click.get());
        } else {
            malformed.inc();
            LOG.warn(
                    "Skipped a line that is not a click (click_id,campaign_id,millis): '{}'", line);
        }
    }
}
