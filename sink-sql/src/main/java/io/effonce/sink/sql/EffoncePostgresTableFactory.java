package io.effonce.sink.sql;

import io.effonce.sink.FlushableSinkOptions;
import io.effonce.sink.PostgresStoreConfig;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'effonce-postgres'}: a table with a {@code PRIMARY KEY} written by the
 * flushable sink — each key's latest row as an absolute SET tagged with the last checkpoint
 * barrier, and after every restore or rescale a flush that removes what the erased run wrote.
 */
public final class EffoncePostgresTableFactory implements DynamicTableSinkFactory {

    public static final String IDENTIFIER = "effonce-postgres";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(EffoncePostgresOptions.URL, EffoncePostgresOptions.TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                EffoncePostgresOptions.USERNAME,
                EffoncePostgresOptions.PASSWORD_FILE,
                EffoncePostgresOptions.PASSWORD_ENV,
                EffoncePostgresOptions.CREATE_TABLES,
                FlushableSinkOptions.BATCH_SIZE,
                FlushableSinkOptions.FLUSH_INTERVAL,
                FlushableSinkOptions.RESET_ON_FRESH_START,
                FlushableSinkOptions.RESTORE_FLUSH,
                FlushableSinkOptions.RETIRED_RETENTION,
                FlushableSinkOptions.OWNER_LEASE,
                FlushableSinkOptions.REQUIRE_DEPLOYMENT_NUMBER,
                FlushableSinkOptions.LOST_WRITE_CHECK,
                FlushableSinkOptions.MAX_RETRIES,
                FlushableSinkOptions.RETRY_BACKOFF,
                FlushableSinkOptions.IDLE_IN_TRANSACTION_TIMEOUT);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        String table = context.getObjectIdentifier().asSummaryString();
        int[] keyFields =
                schema.getPrimaryKey()
                        .map(pk -> schema.getPrimaryKeyIndexes())
                        .orElseThrow(
                                () ->
                                        new ValidationException(
                                                "Table "
                                                        + table
                                                        + " needs a PRIMARY KEY (...) NOT ENFORCED:"
                                                        + " the effonce-postgres sink keeps one"
                                                        + " row per key and writes it as an"
                                                        + " absolute SET."));
        RowType physical = (RowType) schema.toPhysicalRowDataType().getLogicalType();
        int[] valueFields =
                IntStream.range(0, physical.getFieldCount())
                        .filter(i -> Arrays.stream(keyFields).noneMatch(k -> k == i))
                        .toArray();
        RowDataMapping mapping;
        try {
            mapping =
                    new RowDataMapping(
                            project(physical, keyFields), project(physical, valueFields));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("Table " + table + ": " + e.getMessage(), e);
        }
        return new EffoncePostgresTableSink(
                storeConfig(options, table),
                options.get(EffoncePostgresOptions.CREATE_TABLES),
                options,
                physical,
                mapping,
                keyFields,
                valueFields);
    }

    private static PostgresStoreConfig storeConfig(ReadableConfig options, String table) {
        String file = options.get(EffoncePostgresOptions.PASSWORD_FILE);
        String env = options.get(EffoncePostgresOptions.PASSWORD_ENV);
        if (file == null && env == null) {
            throw new ValidationException(
                    "Table "
                            + table
                            + " needs the sink's password: set 'password-file' (a file on every"
                            + " TaskManager whose first line is the password) or 'password-env'"
                            + " (an environment variable of the TaskManagers). A password in the"
                            + " table's options would be in every plan and log that prints them.");
        }
        try {
            String url = options.get(EffoncePostgresOptions.URL);
            String user = options.get(EffoncePostgresOptions.USERNAME);
            String tableName = options.get(EffoncePostgresOptions.TABLE_NAME);
            return (file != null
                            ? PostgresStoreConfig.builder()
                                    .url(url)
                                    .username(user)
                                    .passwordFile(file)
                                    .table(tableName)
                                    .build()
                            : PostgresStoreConfig.builder()
                                    .url(url)
                                    .username(user)
                                    .passwordEnv(env)
                                    .table(tableName)
                                    .build())
                    .toBuilder().options(options).build();
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    "Table " + table + ": " + e.getMessage().replace("sink.table", "'table-name'"),
                    e);
        }
    }

    private static RowType project(RowType row, int[] fields) {
        List<RowType.RowField> projected =
                Arrays.stream(fields).mapToObj(i -> row.getFields().get(i)).toList();
        return new RowType(false, projected);
    }
}
