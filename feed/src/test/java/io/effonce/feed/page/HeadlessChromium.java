package io.effonce.feed.page;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real browser for the page's tests: Debian's {@code chromium}, headless, driven through Debian's
 * {@code chromedriver} (both installed by {@code .ci/run}). Both paths are given, so Selenium
 * Manager never looks for a browser or a driver to download; each instance has a fresh profile in a
 * temporary directory. Not thread-safe: use one from one thread.
 */
public final class HeadlessChromium implements AutoCloseable {

    public static final Path BROWSER = Path.of("/usr/bin/chromium");
    public static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    /** Reads every figure the page shows, in one round trip, from its DOM's data attributes. */
    private static final String READ_PAGE =
            "const b = document.body;"
                    + " return {"
                    + "  events: b.dataset.events, day: b.dataset.day,"
                    + "  asOfCheckpoint: b.dataset.asOfCheckpoint, notices: b.dataset.notices,"
                    + "  asOf: document.getElementById('as-of').textContent,"
                    + "  error: document.getElementById('error').textContent,"
                    + "  lags: ['committed-lag', 'live-lag'].map(id => {"
                    + "      const e = document.getElementById(id);"
                    + "      return {text: e.textContent, colour: e.className,"
                    + "              seconds: e.dataset.seconds}; }),"
                    + "  chart: Array.from(document.querySelectorAll('#chart polyline'))"
                    + "      .map(p => ({key: p.dataset.key, points: p.dataset.points})),"
                    + "  restores: Array.from(document.querySelectorAll('#restores li'))"
                    + "      .map(li => li.dataset.checkpoint),"
                    + "  rows: Array.from(document.querySelectorAll('#rows tr')).map(tr => ({"
                    + "      key: tr.dataset.key, merchant: tr.dataset.merchant,"
                    + "      currency: tr.dataset.currency, committed: tr.dataset.committed,"
                    + "      live: tr.dataset.live, final: tr.dataset.final,"
                    + "      badges: tr.querySelector('[data-field=badges]').textContent}))"
                    + " };";

    private final Path profile;
    private final ChromeDriver driver;

    private HeadlessChromium(Path profile, ChromeDriver driver) {
        this.profile = profile;
        this.driver = driver;
    }

    /** Starts the browser; fails saying how to install it if it is missing. */
    public static HeadlessChromium start() {
        if (!Files.isExecutable(BROWSER) || !Files.isExecutable(DRIVER)) {
            throw new IllegalStateException(
                    "The page's browser tests need Debian's chromium and chromium-driver ("
                            + BROWSER
                            + ", "
                            + DRIVER
                            + "); .ci/run installs them: apt-get install -y"
                            + " --no-install-recommends chromium chromium-driver");
        }
        Path profile;
        try {
            profile = Files.createTempDirectory("effonce-chromium");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BROWSER.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,1400",
                "--user-data-dir=" + profile);
        ChromeDriverService service =
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(DRIVER.toFile())
                        .usingAnyFreePort()
                        .withLogFile(new File(profile.toFile(), "chromedriver.log"))
                        .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        return new HeadlessChromium(profile, driver);
    }

    public void open(URI page) {
        driver.get(page.toString());
    }

    /** What the page shows now. */
    @SuppressWarnings("unchecked")
    public PageFigures figures() {
        return PageFigures.from((Map<String, Object>) driver.executeScript(READ_PAGE));
    }

    /** Saves a PNG of the window as {@code file} (folders created); returns it. */
    public Path screenshot(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            File png = driver.getScreenshotAs(OutputType.FILE);
            Files.copy(png.toPath(), file, StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The page's whole text, for messages. */
    public String text() {
        return String.valueOf(driver.executeScript("return document.body.innerText;"));
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                // a temporary profile left behind is harmless
            }
        }
    }
}
