package dev.vigil.monitor.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The uptime endpoint's parameters: defaults, alignment to the kept resolution, and hostile query
 * strings refused with a 400 naming the parameter (never another exception).
 */
class UptimeRequestTest {
  private static final Instant NOW = Instant.parse("2026-12-07T17:42:10Z");

  @Test
  void defaultsAreThirtyDaysToNowInDailySteps() {
    UptimeRequest request = UptimeRequest.parse(null, NOW);

    // 30 days back reaches before the hourly rollup's span: whole UTC days, the last one today.
    assertThat(request.resolution()).isEqualTo(UptimeRequest.Resolution.DAY);
    assertThat(request.from()).isEqualTo(Instant.parse("2026-11-07T00:00:00Z"));
    assertThat(request.to()).isEqualTo(Instant.parse("2026-12-08T00:00:00Z"));
    assertThat(request.step()).isEqualTo(Duration.ofDays(1));
    assertThat(request.steps()).isEqualTo(31);
  }

  @Test
  void aRecentRangeIsReadHourByHourAndAlignedToWholeHours() {
    UptimeRequest request =
        UptimeRequest.parse(
            "from=2026-12-05T10%3A15%3A00Z&to=2026-12-06T09:30:00%2B00:00&step=6h", NOW);

    assertThat(request.resolution()).isEqualTo(UptimeRequest.Resolution.HOUR);
    assertThat(request.from()).isEqualTo(Instant.parse("2026-12-05T10:00:00Z"));
    assertThat(request.to()).isEqualTo(Instant.parse("2026-12-06T10:00:00Z"));
    assertThat(request.steps()).isEqualTo(4);
  }

  @Test
  void aDateIsMidnightUtcAndAYearAgoIsReadFromDailySums() {
    UptimeRequest request = UptimeRequest.parse("from=2025-12-08&to=2026-12-07&step=7d", NOW);

    assertThat(request.resolution()).isEqualTo(UptimeRequest.Resolution.DAY);
    assertThat(request.from()).isEqualTo(Instant.parse("2025-12-08T00:00:00Z"));
    assertThat(request.steps()).isEqualTo(52); // 364 days: 52 weeks
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          # case                               | query                                              | field | reason
            from after to                      | from=2026-12-06T00:00:00Z&to=2026-12-05T00:00:00Z  | from  | before to
            from equal to                      | from=2026-12-06T00:00:00Z&to=2026-12-06T00:00:00Z  | from  | before to
            to before 1970                     | to=1969-12-31T00:00:00Z                            | to    | between 1970 and 9999
            unparsable from                    | from=yesterday                                     | from  | ISO-8601
            unparsable to                      | to=2026-13-45                                      | to    | ISO-8601
            a huge year                        | from=%2B999999999-12-31T23:59:59Z                  | from  | between 1970 and 9999
            a plus that decodes as a space     | from=+999999999-12-31T23:59:59Z                    | from  | ISO-8601
            a year beyond 9999                 | to=%2B10000-01-01T00:00:00Z                        | to    | between 1970 and 9999
            a year beyond every calendar       | to=%2B9999999999-01-01T00:00:00Z                     | to    | ISO-8601
            a huge number as step              | step=99999999999999999999d                         | step  | like 1h
            a step of minutes                  | from=2026-12-06T00:00:00Z&step=30m                 | step  | 1h is the kept resolution
            a step of seconds                  | from=2026-12-06T00:00:00Z&step=90s                 | step  | whole hours
            hours before the hourly rollup     | from=2026-10-01T00:00:00Z&step=6h                  | step  | 1d is the kept resolution
            a zero step                        | step=0d                                            | step  | between 1h and 400d
            a step over the limit              | step=401d                                          | step  | between 1h and 400d
            a negative step                    | step=-1d                                           | step  | like 1h
            a range over 400 days              | from=2025-01-01&to=2026-12-01                      | from  | more than 400
            a duplicate after valid ones       | from=2026-11-10T00:00:00Z&to=2026-12-07T00:00:00Z&step=1h&from=x | from | more than once
            a duplicate parameter              | step=1d&step=1d                                    | step  | more than once
            an unknown parameter               | form=2026-12-01                                    | form  | unknown parameter
            NUL in a value                     | step=1d%00                                         | step  | control characters
            NUL in a name                      | st%00ep=1d                                         | st?ep | unknown parameter
            line break in a value              | from=2026-12-01%0D%0A                              | from  | control characters
            an incomplete escape               | step=1d%2                                          | step  | incomplete percent escape
            an escape at the end               | step=%                                             | step  | incomplete percent escape
            an invalid escape                  | step=%zz                                           | step  | invalid percent escape
            an escape in a name                | %G1=1                                              | query | invalid percent escape
            an invalid UTF-8 byte              | from=%C3%28                                        | from  | not valid UTF-8
            an overlong UTF-8 encoding         | from=%C0%AF                                        | from  | not valid UTF-8
            an empty value                     | step=                                              | step  | must not be empty
            a name without a value             | step                                               | step  | must not be empty
            a value too long                   | from=2026-12-01T00:00:00.000000000000000000000000000000000000000000000000000000000Z | from | longer than 64
          """)
  void hostileQueriesAreRefusedNamingTheParameter(
      String name, String query, String field, String reason) {
    ApiException refused =
        catchThrowableOfType(ApiException.class, () -> UptimeRequest.parse(query, NOW));

    assertThat(refused).as(name).isNotNull();
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.field()).isEqualTo(field);
    assertThat(refused.getMessage()).contains(reason);
  }

  @Test
  void aMonthOfHourlyStepsIsAcceptedAndStaysUnderTheStepLimit() {
    UptimeRequest request = UptimeRequest.parse("from=2026-11-08T00:00:00Z&step=1h", NOW);

    assertThat(request.resolution()).isEqualTo(UptimeRequest.Resolution.HOUR);
    assertThat(request.steps()).isEqualTo(714); // 29 days and 18 hours, to the next hour
    assertThat(request.steps()).isLessThan(UptimeRequest.MAX_STEPS);
  }

  @Test
  void aHugeValueIsRefusedNamingItsParameterBeforeItIsDecoded() {
    ApiException refused =
        catchThrowableOfType(
            ApiException.class,
            () -> UptimeRequest.parse("step=1d&from=" + "%41".repeat(100_000), NOW));

    assertThat(refused.field()).isEqualTo("from");
    assertThat(refused.getMessage()).contains("longer than 64");
  }

  @Test
  void emptyPairsArePassedOverAndPlusIsASpace() {
    UptimeRequest request = UptimeRequest.parse("&&step=%31d&", NOW);
    assertThat(request.step()).isEqualTo(Duration.ofDays(1));
    ApiException refused =
        catchThrowableOfType(ApiException.class, () -> UptimeRequest.parse("step=1+d", NOW));
    assertThat(refused.field()).isEqualTo("step");
  }

  @Test
  void csvIsAnsweredWhenTheRequestPrefersIt() {
    assertThat(UptimeRoutes.wantsCsv("text/csv")).isTrue();
    assertThat(UptimeRoutes.wantsCsv("text/csv;q=0.9, */*;q=0.1")).isTrue();
    assertThat(UptimeRoutes.wantsCsv("TEXT/CSV; charset=utf-8")).isTrue();
    assertThat(UptimeRoutes.wantsCsv(null)).isFalse();
    assertThat(UptimeRoutes.wantsCsv("*/*")).isFalse();
    assertThat(UptimeRoutes.wantsCsv("application/json, text/csv;q=0.5")).isFalse();
    assertThat(UptimeRoutes.wantsCsv("text/csv;q=0")).isFalse();
    assertThat(UptimeRoutes.wantsCsv("text/csv;q=abc")).isFalse();
    assertThat(UptimeRoutes.wantsCsv("text/csvx")).isFalse();
  }

  @Test
  void csvFieldsAreQuotedWhenTheyMustBe() {
    assertThat(UptimeRoutes.quoted("plain")).isEqualTo("plain");
    assertThat(UptimeRoutes.quoted("a,b")).isEqualTo("\"a,b\"");
    assertThat(UptimeRoutes.quoted("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
    assertThat(UptimeRoutes.quoted("two\r\nlines")).isEqualTo("\"two\r\nlines\"");
    assertThat(UptimeRoutes.quoted("id1 id2")).isEqualTo("\"id1 id2\"");
    assertThat(List.of(UptimeRoutes.quoted(""))).containsExactly("");
  }
}
