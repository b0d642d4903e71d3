package io.effonce.testing.jqwik;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.testing.SoakRun;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** A property's tries: its own in CI's run, {@link SoakTries} in the soak run. */
class SoakTriesTest {

    /** Without -Deffonce.soak=true: the property's own tries. */
    static class InCi {

        private static final AtomicInteger RUNS = new AtomicInteger();

        @BeforeContainer
        static void notTheSoak() {
            System.clearProperty(SoakRun.PROPERTY);
        }

        @Property(tries = 3)
        @SoakTries(7)
        void runs(@ForAll int any) {
            RUNS.incrementAndGet();
        }

        @AfterContainer
        static void ranItsOwnTries() {
            assertThat(RUNS).hasValue(3);
        }
    }

    /** With -Deffonce.soak=true: the soak's tries where a property names them, else its own. */
    static class InTheSoak {

        private static final AtomicInteger SOAK_RUNS = new AtomicInteger();
        private static final AtomicInteger OWN_RUNS = new AtomicInteger();

        @BeforeContainer
        static void theSoak() {
            System.setProperty(SoakRun.PROPERTY, "true");
        }

        @Property(tries = 3)
        @SoakTries(7)
        void runsTheSoaksTries(@ForAll int any) {
            SOAK_RUNS.incrementAndGet();
        }

        @Property(tries = 3)
        void runsItsOwnTries(@ForAll int any) {
            OWN_RUNS.incrementAndGet();
        }

        @AfterContainer
        static void ranTheSoaksTriesOnlyWhereNamed() {
            System.clearProperty(SoakRun.PROPERTY);
            assertThat(SOAK_RUNS).hasValue(7);
            assertThat(OWN_RUNS).hasValue(3);
        }
    }
}
