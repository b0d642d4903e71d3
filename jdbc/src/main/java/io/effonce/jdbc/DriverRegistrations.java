package io.effonce.jdbc;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes back the JDBC drivers a class loader registered with {@link DriverManager}. A driver
 * registers itself when its class is first loaded, and DriverManager is a JDK class: in a Flink
 * process that runs many jobs (a session cluster's JobManager runs each submission's {@code main},
 * its TaskManagers each job's tasks) the registration keeps the job's user-code class loader, and
 * every class it loaded, alive for good. Call it when that loader's work is done: at the end of
 * {@code main}, or from Flink's user-code class-loader release hook in the tasks.
 */
public final class DriverRegistrations {

    private static final Logger LOG = LoggerFactory.getLogger(DriverRegistrations.class);

    /** The name of the user-code class-loader release hook that calls {@link #releaseLoadedBy}. */
    public static final String RELEASE_HOOK = "effonce-jdbc-drivers";

    private DriverRegistrations() {}

    /**
     * Deregisters every driver whose class the given loader defined; returns how many. The system
     * class loader lives as long as the JVM (a job run from an IDE or a test), and keeps its
     * drivers.
     */
    public static int releaseLoadedBy(ClassLoader loader) {
        if (loader == null || loader == ClassLoader.getSystemClassLoader()) {
            return 0;
        }
        int released = 0;
        // DriverManager shows and deregisters only the drivers this class's loader can see: in a
        // job that is the job's loader, the one whose drivers are released here.
        List<Driver> drivers = Collections.list(DriverManager.getDrivers());
        for (Driver driver : drivers) {
            if (driver.getClass().getClassLoader() != loader) {
                continue;
            }
            try {
                DriverManager.deregisterDriver(driver);
                released++;
            } catch (SQLException | SecurityException e) {
                LOG.warn("Could not deregister the JDBC driver {}", driver.getClass(), e);
            }
        }
        return released;
    }
}
