package io.effonce.dedup;

import java.io.Serializable;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A setting an operator's state depends on, recorded in operator state and compared on every
 * restore: a restore whose setting differs in a way the state cannot take fails with {@link
 * SettingChangedException}, naming the option, the recorded value and the new one.
 *
 * <p>Each subtask writes the value as one entry of a union list state, so after a rescale every
 * subtask sees every recorded value. State restored from a savepoint that recorded nothing (taken
 * by release 0.1.0, before settings were recorded) is taken to have been built with the current
 * value, which is recorded from then on; a warning says so.
 */
public final class RecordedSetting implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(RecordedSetting.class);

    /** Which changes of a recorded value the state can take. */
    @FunctionalInterface
    public interface ChangeRule extends Serializable {
        /** No change at all. */
        ChangeRule NONE = (recorded, now) -> false;

        boolean allows(String recorded, String now);
    }

    private final String option;
    private final String value;
    private final ChangeRule rule;
    private final String why;

    /**
     * @param option the configuration key, as a user sets it
     * @param value the current value, in the form the refusal shows
     * @param rule which changes from a recorded value are safe
     * @param why what a forbidden change would break, for the refusal
     */
    public RecordedSetting(String option, String value, ChangeRule rule, String why) {
        this.option = option;
        this.value = value;
        this.rule = rule;
        this.why = why;
    }

    /** The configuration key. */
    public String option() {
        return option;
    }

    /** State name: {@code effonce-setting-<option>}, part of the savepoint format. */
    public String stateName() {
        return "effonce-setting-" + option;
    }

    /**
     * Whether the restored operator state holds a recorded value of this setting: an operator that
     * always records its settings and restored none was not in the checkpoint it restored.
     */
    public boolean isRecordedIn(OperatorStateStore store) throws Exception {
        ListState<String> state =
                store.getUnionListState(
                        new ListStateDescriptor<>(stateName(), StringSerializer.INSTANCE));
        return state.get().iterator().hasNext();
    }

    /**
     * Compares the restored values with the current one (refusing a change the rule forbids), then
     * records the current one.
     */
    public void check(OperatorStateStore store, boolean restored) throws Exception {
        ListState<String> state =
                store.getUnionListState(
                        new ListStateDescriptor<>(stateName(), StringSerializer.INSTANCE));
        if (restored) {
            requireCompatible(state.get());
        }
        state.update(List.of(value));
    }

    /**
     * Refuses (with {@link SettingChangedException}) a current value the rule forbids after any of
     * the {@code restored} ones; nothing restored is taken as built with the current value.
     */
    public void requireCompatible(Iterable<String> restored) {
        Set<String> recorded = new TreeSet<>();
        restored.forEach(recorded::add);
        if (recorded.isEmpty()) {
            LOG.warn(
                    "The restored state records no {} (a savepoint of release 0.1.0): it is taken"
                            + " to have been built with {}={}, which is recorded from now on",
                    option,
                    option,
                    value);
        }
        for (String before : recorded) {
            if (before.equals(value)) {
                continue;
            }
            if (!rule.allows(before, value)) {
                throw new SettingChangedException(option, before, value, why);
            }
            LOG.info(
                    "{} changed from {} to {}, a change the state can take", option, before, value);
        }
    }
}
