package io.effonce.it.testutils;

import static org.awaitility.Awaitility.await;

import io.effonce.feed.page.HeadlessChromium;
import io.effonce.feed.page.PageFigures;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Watches the live page in a real browser as a person would, reading the figures it shows (from the
 * DOM) every 100 ms, and records every committed figure lower than the one the page showed for the
 * same merchant-day before. A key that leaves the page (another merchant overtook it) is not a step
 * back; one that comes back is compared with its last figure. The live column may step back during
 * a recovery; those are counted too, for the report. The browser is used from the sampler's thread
 * only.
 */
public final class PageSampler implements AutoCloseable {

    /** A committed figure the page showed lower than before. */
    public record StepBack(String key, long before, long after, long sample) {}

    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private final HeadlessChromium browser;
    private final ScheduledExecutorService thread;
    private final Map<String, Long> lastCommitted = new HashMap<>();
    private final Map<String, Long> lastLive = new HashMap<>();
    private final List<StepBack> committedStepsBack = new ArrayList<>();
    private final AtomicLong liveStepsBack = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();
    private final AtomicReference<PageFigures> latest = new AtomicReference<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    private PageSampler(HeadlessChromium browser) {
        this.browser = browser;
        this.thread =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "page-sampler");
                            t.setDaemon(true);
                            return t;
                        });
    }

    /** Opens {@code page} in {@code browser} and starts sampling it. */
    public static PageSampler start(HeadlessChromium browser, URI page) {
        PageSampler sampler = new PageSampler(browser);
        sampler.onBrowser(
                () -> {
                    browser.open(page);
                    return null;
                });
        sampler.thread.scheduleWithFixedDelay(sampler::sample, 0, 100, TimeUnit.MILLISECONDS);
        return sampler;
    }

    private void sample() {
        try {
            PageFigures f = browser.figures();
            synchronized (this) {
                long n = samples.get() + 1;
                for (PageFigures.Shown row : f.rows()) {
                    if (row.committed() != null) {
                        Long before = lastCommitted.put(row.key(), row.committed());
                        if (before != null && row.committed() < before) {
                            committedStepsBack.add(
                                    new StepBack(row.key(), before, row.committed(), n));
                        }
                    }
                    if (row.live() != null) {
                        Long before = lastLive.put(row.key(), row.live());
                        if (before != null && row.live() < before) {
                            liveStepsBack.incrementAndGet();
                        }
                    }
                }
            }
            latest.set(f);
            samples.incrementAndGet();
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e); // the browser is gone: the test says so
        }
    }

    /** Waits until the page shows figures that pass {@code check}; returns them. */
    public PageFigures awaitShown(String what, Predicate<PageFigures> check) {
        AtomicReference<PageFigures> seen = new AtomicReference<>();
        await("the page to show " + what)
                .atMost(TIMEOUT)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            throwIfFailed();
                            PageFigures f = latest.get();
                            seen.set(f);
                            return f != null && check.test(f);
                        });
        return seen.get();
    }

    /** Saves a screenshot of the page now (on the sampler's thread). */
    public Path screenshot(Path file) {
        return onBrowser(() -> browser.screenshot(file));
    }

    public synchronized List<StepBack> committedStepsBack() {
        return List.copyOf(committedStepsBack);
    }

    public long liveStepsBack() {
        return liveStepsBack.get();
    }

    public long samples() {
        return samples.get();
    }

    /** Merchant-days whose committed figure the page has shown. */
    public synchronized int keysSeen() {
        return lastCommitted.size();
    }

    private void throwIfFailed() {
        if (failure.get() != null) {
            throw new AssertionError("The browser failed while sampling the page", failure.get());
        }
    }

    private <T> T onBrowser(Callable<T> task) {
        try {
            return thread.submit(task).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("The browser failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("The browser did not answer in " + TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops sampling; the browser stays open for the caller to close. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
