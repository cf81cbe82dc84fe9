package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorService;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * What a person sees: a real headless Chromium (Debian's {@code chromium} and {@code
 * chromium-driver}, never downloaded) opens the status page of a running monitor that probes a
 * healthy and a broken local server, so an incident exists. Screenshots land in {@code
 * target/status-page/} for review.
 */
@ExtendWith(VigilInfraExtension.class)
class StatusPageBrowserIT {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SHOTS = Path.of("target", "status-page");
  private static final String TOKEN = "browser-test-token";
  private static final String HOSTILE =
      "<script>window.pwned=1</script>\"'><img src=x onerror=\"window.pwned=2\">";
  private static final Duration PATIENCE = Duration.ofSeconds(90);

  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicInteger brokenStatus = new AtomicInteger(503);
  private HttpServer targets;
  private MonitorService monitor;
  private WebDriver browser;
  private String base;

  @BeforeEach
  void start(TestDatabase db) throws Exception {
    Assumptions.assumeTrue(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "needs Debian's chromium and chromium-driver at "
            + CHROMIUM
            + " and "
            + CHROMEDRIVER
            + " (apt-get install chromium chromium-driver; .ci/run installs them)");
    Files.createDirectories(SHOTS);
    targets = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    targets.createContext("/ok", exchange -> answer(exchange, 200));
    targets.createContext("/broken", exchange -> answer(exchange, brokenStatus.get()));
    targets.start();
    String origin = "http://127.0.0.1:" + targets.getAddress().getPort();
    Path file = Files.createTempFile("targets", ".yaml");
    Files.writeString(
        file,
        """
        targets:
          - name: payments
            url: %1$s/ok
            interval: 2s
            timeout: 2s
          - name: search
            url: %1$s/broken
            interval: 1s
            timeout: 1s
            failureThreshold: 2
          - name: nightly-batch
            type: push
        """
            .formatted(origin));
    Map<String, String> settings = TestMonitors.settings(db, TOKEN);
    settings.put("VIGIL_MONITOR_TARGETS_FILE", file.toString());
    settings.put("VIGIL_MONITOR_CLAIM_POLL_INTERVAL", "50ms");
    settings.put("VIGIL_MONITOR_STATUS_REFRESH", "1s");
    settings.put("VIGIL_MONITOR_STATUS_ROLLUP_INTERVAL", "1s");
    // The page must show the hostile DOWN reason (escaped) to an anonymous browser; reasons are
    // hidden from anonymous readers by default (ExposureIT).
    settings.put("VIGIL_MONITOR_PUBLIC_DETAILS", "all");
    monitor = MonitorService.start(new MonitorConfig(new Settings(settings)));
    base = "http://127.0.0.1:" + monitor.httpPort();
    push("DOWN", HOSTILE + " exit 1\u2028" + "z".repeat(5_000));
    recordPastDay();
  }

  /**
   * A day and a half of earlier checks every 10 minutes (search down for an hour 5 hours ago),
   * summed by a rollup's first run, so charts and uptime windows have something to show.
   */
  private void recordPastDay() throws Exception {
    try (java.sql.Connection connection = monitor.dataSource().getConnection();
        java.sql.PreparedStatement insert =
            connection.prepareStatement(
                """
                insert into check_history
                       (service, status, started_at, recorded_at, latency_ms, http_status, source)
                select s.service, case when s.service = 'search' and m between 290 and 350
                                       then 'DOWN' else 'UP' end,
                       now() - m * interval '1 minute', now() - m * interval '1 minute',
                       (case s.service when 'payments' then 60 else 140 end)
                         + (40 * sin(m / 90.0))::int + (m % 7) * 3,
                       200, 'probe'
                  from generate_series(10, 2160, 10) m,
                       (values ('payments'), ('search')) s(service)
                """)) {
      insert.executeUpdate();
    }
    new UptimeRollup(monitor.dataSource(), Duration.ofHours(1)).runOnce();
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (monitor != null) {
      monitor.close();
    }
    if (targets != null) {
      targets.stop(0);
    }
    http.close();
  }

  @Test
  void personSeesStatesIncidentChartAndServicePageAndThePageRefreshesInPlace() throws Exception {
    browser = chromium(false, 1280, 1000);
    browser.get(base + "/status");
    // The page itself, served before anything is known, refreshes in place until it shows the
    // broken service DOWN with an open incident and uptime counted for the healthy one.
    script("window.loadedOnce = 'yes';");
    await()
        .atMost(PATIENCE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(stateOf("search")).isEqualTo("DOWN");
              assertThat(stateOf("payments")).isEqualTo("UP");
              // Exact values are StatusPageIT's; here: every window shows a percentage (a probe
              // of payments that timed out on a loaded machine may cost it its 100.00%).
              assertThat(card("payments").findElements(By.cssSelector(".uptime dd")))
                  .extracting(WebElement::getText)
                  .allMatch(text -> text.matches("\\d{1,3}\\.\\d\\d%"));
              assertThat(card("search").findElement(By.cssSelector(".uptime dd")).getText())
                  .matches("[1-9]\\d\\.\\d\\d%");
              assertThat(card("payments").findElements(By.cssSelector(".chart polyline")))
                  .isNotEmpty();
              assertThat(openIncidents()).anyMatch(text -> text.startsWith("search ongoing for"));
            });
    assertThat(script("return window.loadedOnce")).as("no full reload").isEqualTo("yes");
    assertThat(script("return window.pwned")).as("hostile error ran no script").isNull();
    assertThat(text(".service[data-service='nightly-batch'] .error")).startsWith(HOSTILE);
    assertThat(text("#last-check")).endsWith("UTC");
    shot("overview-desktop");

    // The broken service recovers: the incident closes with a duration, still without a reload.
    brokenStatus.set(200);
    await()
        .atMost(PATIENCE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(stateOf("search")).isEqualTo("UP");
              assertThat(closedIncidents())
                  .anyMatch(text -> text.matches("search down for \\d+.*"));
            });
    assertThat(script("return window.loadedOnce")).as("no full reload").isEqualTo("yes");

    // The service page: history table, chart with the DOWN checks marked, the incident.
    // A real click; retried if the refresh replaced the card between finding the link and clicking.
    await()
        .atMost(PATIENCE)
        .ignoreException(StaleElementReferenceException.class)
        .until(
            () -> {
              card("search").findElement(By.cssSelector("a.name")).click();
              return true;
            });
    await()
        .atMost(PATIENCE)
        .until(() -> browser.getCurrentUrl().endsWith("/status/services/search"));
    assertThat(text("#summary .name")).isEqualTo("search");
    assertThat(browser.findElements(By.cssSelector(".chart circle.down"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector(".chart polyline"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector("table.checks tr.down"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector("table.checks tr.up"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector(".incident.closed"))).hasSize(1);
    shot("service-desktop");
  }

  @Test
  void phoneWidthHasNoSideScrollAndOneColumn() throws Exception {
    awaitIncident();
    browser = chromium(false, 375, 812);
    browser.get(base + "/status");
    long viewport = ((Number) script("return document.documentElement.clientWidth")).longValue();
    assertThat(((Number) script("return document.documentElement.scrollWidth")).longValue())
        .as("no horizontal scrolling at 375 px")
        .isLessThanOrEqualTo(viewport);
    // Measured in one script call: the 1 s refresh replaces the cards between two WebDriver calls
    // on a loaded machine (a stale element otherwise).
    @SuppressWarnings("unchecked")
    List<Number> box =
        (List<Number>)
            script(
                "var c = document.querySelectorAll('.service');"
                    + " var a = c[0].getBoundingClientRect(), b = c[1].getBoundingClientRect();"
                    + " return [a.width, a.top, b.top];");
    assertThat(box.get(0).doubleValue()).as("cards take the whole width").isGreaterThan(300);
    assertThat(box.get(2).doubleValue())
        .as("cards stack in one column")
        .isGreaterThan(box.get(1).doubleValue());
    shot("overview-phone");
    browser.get(base + "/status/services/nightly-batch");
    assertThat(((Number) script("return document.documentElement.scrollWidth")).longValue())
        .as("a 5,000-character error wraps instead of widening the page")
        .isLessThanOrEqualTo(viewport);
    shot("service-phone");
  }

  @Test
  void withoutJavaScriptThePageIsCompleteAndReadable() throws Exception {
    awaitIncident();
    browser = chromium(true, 1024, 900);
    browser.get(base + "/status");
    // A card shows its service's last check: one probe of payments that timed out on a loaded
    // machine shows DOWN until the next. Without JavaScript only a reload shows the next one.
    await()
        .atMost(PATIENCE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              browser.navigate().refresh();
              assertThat(stateOf("search")).isEqualTo("DOWN");
              assertThat(stateOf("payments")).isEqualTo("UP");
              assertThat(openIncidents()).anyMatch(text -> text.startsWith("search ongoing for"));
            });
    assertThat(browser.findElements(By.cssSelector(".chart svg"))).hasSize(3);
    shot("overview-no-javascript");
  }

  private void awaitIncident() {
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              HttpResponse<String> page =
                  http.send(
                      HttpRequest.newBuilder(URI.create(base + "/status")).build(),
                      HttpResponse.BodyHandlers.ofString());
              return page.body().contains("<strong>ongoing</strong>");
            });
  }

  private String stateOf(String service) {
    return card(service).findElement(By.cssSelector(".state")).getText();
  }

  /**
   * The rendered text of the first element matching {@code css}, read in one script call: the page
   * replaces its content every second, and between finding an element and reading it in two
   * WebDriver calls the element may be gone (a stale element on the loaded CI machine).
   */
  private String text(String css) {
    return (String)
        script(
            "var e = document.querySelector(arguments[0]); return e === null ? null : e.innerText;",
            css);
  }

  private WebElement card(String service) {
    return browser.findElement(By.cssSelector(".service[data-service='" + service + "']"));
  }

  private List<String> openIncidents() {
    return incidents("open");
  }

  private List<String> closedIncidents() {
    return incidents("closed");
  }

  private List<String> incidents(String state) {
    return browser.findElements(By.cssSelector(".incident." + state + " .what")).stream()
        .map(WebElement::getText)
        .toList();
  }

  private Object script(String code, Object... args) {
    return ((JavascriptExecutor) browser).executeScript(code, args);
  }

  private void shot(String name) throws Exception {
    File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static WebDriver chromium(boolean withoutJavaScript, int width, int height) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1");
    if (withoutJavaScript) {
      options.setExperimentalOption(
          "prefs", Map.of("profile.managed_default_content_settings.javascript", 2));
    }
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(width, height));
    return driver;
  }

  private void push(String status, String error) throws Exception {
    String body =
        dev.vigil.kit.http.HttpJson.mapper()
            .writeValueAsString(Map.of("status", status, "error", error));
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/api/services/nightly-batch/results"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status)
      throws java.io.IOException {
    byte[] body = ("status " + status).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, body.length);
    try (var out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
