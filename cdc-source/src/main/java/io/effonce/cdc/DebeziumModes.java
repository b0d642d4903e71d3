package io.effonce.cdc;

import io.debezium.config.EnumeratedValue;
import io.debezium.connector.postgresql.PostgresConnectorConfig.LsnFlushMode;
import io.debezium.connector.postgresql.PostgresConnectorConfig.OffsetSlotMismatchStrategy;
import io.debezium.connector.postgresql.PostgresConnectorConfig.SnapshotMode;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The relay's mode options as Debezium's own enums, read by Debezium's parsers from Debezium's
 * names ({@code no_data}, {@code connector}, ...), and only the values the relay supports: a
 * snapshot mode that needs more configuration ({@code configuration_based}, {@code custom}) is
 * refused by name.
 */
final class DebeziumModes {

    static final Set<SnapshotMode> SNAPSHOT_MODES =
            EnumSet.of(
                    SnapshotMode.NO_DATA,
                    SnapshotMode.INITIAL,
                    SnapshotMode.WHEN_NEEDED,
                    SnapshotMode.ALWAYS,
                    SnapshotMode.INITIAL_ONLY);

    private DebeziumModes() {}

    /** {@code --snapshot-mode}. */
    static final class Snapshot implements ITypeConverter<SnapshotMode> {
        @Override
        public SnapshotMode convert(String text) {
            return parse("--snapshot-mode", text, SnapshotMode::parse, SNAPSHOT_MODES);
        }
    }

    /** {@code --lsn-flush-mode}. */
    static final class LsnFlush implements ITypeConverter<LsnFlushMode> {
        @Override
        public LsnFlushMode convert(String text) {
            return parse(
                    "--lsn-flush-mode",
                    text,
                    LsnFlushMode::parse,
                    EnumSet.allOf(LsnFlushMode.class));
        }
    }

    /** {@code --offset-mismatch-strategy}. */
    static final class OffsetMismatch implements ITypeConverter<OffsetSlotMismatchStrategy> {
        @Override
        public OffsetSlotMismatchStrategy convert(String text) {
            return parse(
                    "--offset-mismatch-strategy",
                    text,
                    OffsetSlotMismatchStrategy::parse,
                    EnumSet.allOf(OffsetSlotMismatchStrategy.class));
        }
    }

    private static <E extends Enum<E> & EnumeratedValue> E parse(
            String option, String text, Function<String, E> debezium, Set<E> supported) {
        E mode = text == null ? null : debezium.apply(text.strip());
        if (mode == null || !supported.contains(mode)) {
            throw new TypeConversionException(
                    option
                            + " must be one of "
                            + supported.stream()
                                    .map(EnumeratedValue::getValue)
                                    .collect(Collectors.joining(", "))
                            + ", was '"
                            + text
                            + "'");
        }
        return mode;
    }
}
