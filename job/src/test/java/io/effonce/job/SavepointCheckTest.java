package io.effonce.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A savepoint of every release before 0.3.0 names the job's state classes by their old names: the
 * job refuses it in {@code main}, naming the migration, instead of tasks that fail at every
 * restart. (The migrated savepoints pass: {@code JobSavepointCompatibilityITCase}.)
 */
class SavepointCheckTest {

    @ParameterizedTest(name = "release {0}")
    @ValueSource(strings = {"0.1.0", "0.2.0", "0.2.1"})
    void aSavepointOfAnEarlierReleaseIsRefusedNamingTheMigration(String release) throws Exception {
        String savepoint = fixture(release);

        List<String> refusal = SavepointCheck.run(restoring(savepoint), new SerializerConfigImpl());

        assertThat(refusal)
                .singleElement()
                .asString()
                .contains("was taken before release 0.3.0")
                .contains("io.effonce.sink.store.MerchantDayKey")
                .contains(
                        "flink run -c io.effonce.job.migrate.MigrateSavepoint"
                                + " effonce-job-<version>-migrate.jar --migrate.from "
                                + savepoint);
    }

    /** The job's own jar leaves the old classes out: reading such a savepoint cannot find them. */
    @Test
    void withoutTheOldClassesTheSavepointIsRefusedToo() throws Exception {
        String savepoint = fixture("0.2.1");
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(new WithoutTheOldClasses(before));
        try {
            assertThat(SavepointCheck.run(restoring(savepoint), new SerializerConfigImpl()))
                    .singleElement()
                    .asString()
                    .contains("was taken before release 0.3.0");
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    @Test
    void aJobThatRestoresNothingIsNotChecked() {
        assertThat(SavepointCheck.run(new Configuration(), new SerializerConfigImpl())).isEmpty();
    }

    /** The class path of the job's own jar, as far as the old classes go. */
    private static final class WithoutTheOldClasses extends ClassLoader {
        WithoutTheOldClasses(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.effonce.sink.store.")) {
                throw new ClassNotFoundException(name);
            }
            return super.loadClass(name, resolve);
        }
    }

    private static Configuration restoring(String savepoint) {
        Configuration config = new Configuration();
        config.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        return config;
    }

    private static String fixture(String release) throws Exception {
        URL url = SavepointCheckTest.class.getResource("/savepoints/" + release + "/job/_metadata");
        assertThat(url).as("the job savepoint of %s on the test classpath", release).isNotNull();
        return Path.of(url.toURI()).getParent().toUri().toString();
    }
}
