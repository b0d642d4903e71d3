package io.effonce.sink.testutils;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A JDBC driver in front of PostgreSQL's that cuts a connection at the COMMIT a {@link GatedStore}
 * armed on the calling thread: the transaction commits or not, the connection is closed, and the
 * caller sees the I/O error a lost connection gives ({@code 08006}). While the attempt's database
 * is down ({@link PauseGate#databaseDown()}), new connections are refused ({@code 08001}). The
 * store's own session retries, as in production. Listed as a {@code java.sql.Driver} service (this
 * module's test resources), where the store finds drivers as it finds PostgreSQL's.
 */
public final class CuttingDriver implements Driver {

    private static final String PREFIX = "jdbc:effonce-cut:";
    private static final ThreadLocal<Armed> ARMED = new ThreadLocal<>();

    private record Armed(PauseGate gate, ConnectionCut cut) {}

    /** {@code jdbcUrl} (a PostgreSQL URL) through this driver. */
    public static String url(String jdbcUrl) {
        return PREFIX + jdbcUrl.substring("jdbc:".length());
    }

    static void arm(PauseGate gate, ConnectionCut cut) {
        ARMED.set(new Armed(gate, cut));
    }

    static void disarm() {
        ARMED.remove();
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        PauseGate gate = PauseGate.ofThisThreadIfAny();
        if (gate != null && gate.databaseDown()) {
            throw new SQLException(
                    "Connection refused: the database is down (a cut drawn by the test)", "08001");
        }
        Connection real =
                DriverManager.getConnection("jdbc:" + url.substring(PREFIX.length()), info);
        return (Connection)
                Proxy.newProxyInstance(
                        Connection.class.getClassLoader(),
                        new Class<?>[] {Connection.class},
                        (proxy, method, args) -> {
                            Armed armed = ARMED.get();
                            if (armed != null && method.getName().equals("commit")) {
                                ARMED.remove();
                                cut(real, armed);
                            }
                            try {
                                return method.invoke(real, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
    }

    private static void cut(Connection real, Armed armed) throws SQLException {
        armed.gate().cutHit(armed.cut());
        if (armed.cut().committed()) {
            real.commit();
        } else {
            real.rollback();
        }
        real.close();
        throw new SQLException(
                "An I/O error occurred while sending to the backend: the connection was cut at"
                        + " COMMIT (a cut drawn by the test: "
                        + armed.cut()
                        + ")",
                "08006");
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
