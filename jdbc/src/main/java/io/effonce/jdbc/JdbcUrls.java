package io.effonce.jdbc;

/** What of a JDBC URL may be shown: a URL goes into logs and exception messages. */
public final class JdbcUrls {

    private JdbcUrls() {}

    /**
     * The URL without the values of parameters that can hold secrets ({@code password}, {@code
     * sslpassword}, {@code sslkey}...).
     */
    public static String redacted(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)([?&;](?:[a-z]*password|sslkey|sslcert)=)[^&;]*", "$1***");
    }
}
