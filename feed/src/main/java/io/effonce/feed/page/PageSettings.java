package io.effonce.feed.page;

import io.effonce.credentials.DatabaseLogin;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Objects;

/**
 * How a {@link LivePageServer} runs: where it reads, where it listens, what it shows.
 *
 * @param bindAddress the address to listen on ({@code 127.0.0.1}: this machine only)
 * @param port the port; 0 takes a free one ({@link LivePageServer#uri()} tells which)
 * @param top how many merchant-days the page lists
 * @param day the day to show; null shows the newest day of the totals tables
 * @param liveInterval how often the live column is read (the committed one is read on each commit)
 */
public record PageSettings(
        DatabaseLogin login,
        String bindAddress,
        int port,
        int top,
        LocalDate day,
        Duration liveInterval) {

    public static final int DEFAULT_PORT = 8090;
    public static final int DEFAULT_TOP = 10;
    public static final Duration DEFAULT_LIVE_INTERVAL = Duration.ofSeconds(1);

    public PageSettings {
        Objects.requireNonNull(login, "login");
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(liveInterval, "liveInterval");
    }

    /** The defaults: this machine only, the newest day's top 10, the live column every second. */
    public static PageSettings of(DatabaseLogin login, int port) {
        return new PageSettings(login, "127.0.0.1", port, DEFAULT_TOP, null, DEFAULT_LIVE_INTERVAL);
    }

    public PageSettings withTop(int newTop) {
        return new PageSettings(login, bindAddress, port, newTop, day, liveInterval);
    }

    public PageSettings withLiveInterval(Duration interval) {
        return new PageSettings(login, bindAddress, port, top, day, interval);
    }
}
