package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.monitor.status.StatusReads.CheckRow;
import dev.vigil.monitor.status.StatusReads.HourRow;
import dev.vigil.monitor.status.StatusReads.IncidentRow;
import dev.vigil.monitor.status.StatusReads.ServiceRow;
import dev.vigil.monitor.status.StatusReads.Snapshot;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Service names and errors come from outside (targets, probed servers, pushing checkers, anything
 * written to the database): whatever they hold, the page shows them as text.
 */
class HostileTextTest {
  private static final String SCRIPT = "<script>alert(1)</script>";
  private static final String ATTRIBUTE = "\"' onmouseover=\"alert(2)\" x='";
  private static final String TAG = "</title><img src=x onerror=alert(3)>";
  private static final String NUL = "before\u0000after\u001b[31m";
  private static final String LONG = "y".repeat(200_000);
  private static final Instant NOW = Instant.parse("2026-11-30T12:34:56Z");

  private final Templates templates = new Templates();

  @Test
  void overviewShowsHostileNamesAndErrorsAsText() {
    String html = templates.overviewPage(page(overview()));
    assertEscaped(html);
    assertThat(html).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
  }

  @Test
  void servicePageShowsHostileNamesAndErrorsAsText() {
    String html = templates.servicePage(page(Views.servicePage(snapshot())));
    assertEscaped(html);
  }

  @Test
  void fragmentsAreEscapedLikeThePage() {
    assertEscaped(templates.overviewFragment(overview()));
    assertEscaped(templates.serviceFragment(Views.servicePage(snapshot())));
  }

  @Test
  void badgesAreWellFormedSvgWhateverTheText() throws Exception {
    String svg = templates.badge(Badge.of(SCRIPT + ATTRIBUTE, TAG + NUL + LONG, "#2e7d32"));
    assertEscaped(svg);
    javax.xml.parsers.DocumentBuilderFactory factory =
        javax.xml.parsers.DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    var document =
        factory
            .newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(document.getDocumentElement().getTagName()).isEqualTo("svg");
    assertThat(document.getElementsByTagName("text").item(0).getTextContent())
        .startsWith(SCRIPT + "\"'");
  }

  @Test
  void noTemplateWritesAnythingUnescaped() throws Exception {
    for (String file : Templates.FILES) {
      try (InputStream in = Templates.class.getResourceAsStream("/status/" + file)) {
        assertThat(in).as(file).isNotNull();
        String template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        assertThat(template).as(file).doesNotContain("{{{").doesNotContain("{{&");
      }
    }
  }

  private static void assertEscaped(String html) {
    assertThat(html)
        .doesNotContain(SCRIPT)
        .doesNotContain("onmouseover=\"alert")
        .doesNotContain("<img")
        .doesNotContain("\u0000")
        .doesNotContain("\u001b")
        .doesNotContain("y".repeat(Format.MAX_ERROR + 1));
    assertThat(html.length()).isLessThan(60_000);
  }

  private static Templates.Page page(Object body) {
    return new Templates.Page(SCRIPT + " · Vigil status", 30, "/status", body);
  }

  /** The overview of {@link #snapshot()}'s services, as the first unfiltered page. */
  static Views.Overview overview() {
    Snapshot snapshot = snapshot();
    return Views.overview(
        new OverviewReads.Page(
            snapshot,
            snapshot.services().size(),
            new OverviewReads.Totals(snapshot.services().size(), 1, 0, NOW),
            java.util.Set.of(),
            new OverviewReads.IncidentCounts(
                snapshot.incidents().size(),
                snapshot.incidents().stream().filter(i -> i.closedAt() == null).count())),
        OverviewQuery.FIRST);
  }

  static Snapshot snapshot() {
    String name = SCRIPT + ATTRIBUTE + TAG;
    String error = SCRIPT + ATTRIBUTE + TAG + NUL + LONG;
    Instant hour = NOW.truncatedTo(ChronoUnit.HOURS);
    return new Snapshot(
        NOW,
        List.of(
            new ServiceRow(
                name,
                "http",
                true,
                "DOWN",
                NOW.minusSeconds(90),
                NOW.minusSeconds(2),
                1234L,
                error,
                NOW.minusSeconds(60),
                new Uptime(95, 5),
                new Uptime(990, 10),
                Uptime.NONE)),
        List.of(
            new HourRow(name, hour.minus(Duration.ofHours(1)), 60, 0, 80L),
            new HourRow(name, hour, 35, 5, 1200L)),
        List.of(
            // Acknowledged by whoever the API was told: hostile text too.
            new IncidentRow(
                "i-1", name, NOW.minusSeconds(60), null, error, error, 3, error, NOW, error),
            new IncidentRow(
                "i-0",
                name,
                NOW.minusSeconds(7200),
                NOW.minusSeconds(7000),
                error,
                error,
                4,
                null,
                null,
                null)),
        List.of(
            new CheckRow(2, "DOWN", NOW.minusSeconds(2), 1234L, 503, error, "probe"),
            new CheckRow(1, "UP", NOW.minusSeconds(12), 80L, 200, null, "probe")));
  }
}
