package io.effonce.testing;

/**
 * Whether the long soak run was asked for ({@code -Deffonce.soak=true}; the root pom passes it to
 * every module's tests): more faults, longer histories and more tries of the properties, with the
 * same assertions as CI's run.
 */
public final class SoakRun {

    /** The system property that asks for the soak run. */
    public static final String PROPERTY = "effonce.soak";

    private SoakRun() {}

    public static boolean asked() {
        return Boolean.getBoolean(PROPERTY);
    }
}
