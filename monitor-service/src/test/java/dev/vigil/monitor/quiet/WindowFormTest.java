package dev.vigil.monitor.quiet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.DayOfWeek;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WindowFormTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void readsAndWritesTheSameForm() throws Exception {
    Window window =
        WindowForm.read(
            json(
                "{\"days\":[\"Sunday\",\"sat\"],\"start\":\"02:00\",\"length\":\"90m\","
                    + "\"zone\":\"Europe/Berlin\"}"),
            "",
            Set.of());
    assertThat(window.days()).containsExactlyInAnyOrder(DayOfWeek.SATURDAY, DayOfWeek.SUNDAY);
    assertThat(window.length()).isEqualTo(Duration.ofMinutes(90));
    assertThat(WindowForm.write(window).toString())
        .isEqualTo(
            "{\"days\":[\"sat\",\"sun\"],\"start\":\"02:00\",\"length\":\"90m\","
                + "\"zone\":\"Europe/Berlin\"}");
    assertThat(WindowForm.read(WindowForm.write(window), "", Set.of())).isEqualTo(window);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown zone | {'days':['mon'],'start':'02:00','length':'1h','zone':'Mars/Olympus'} | w.zone",
        "offset zone | {'days':['mon'],'start':'02:00','length':'1h','zone':'+02:00'} | w.zone",
        "abbreviation | {'days':['mon'],'start':'02:00','length':'1h','zone':'CET'} | w.zone",
        "25:00 | {'days':['mon'],'start':'25:00','length':'1h','zone':'UTC'} | w.start",
        "24:00 | {'days':['mon'],'start':'24:00','length':'1h','zone':'UTC'} | w.start",
        "seconds | {'days':['mon'],'start':'02:00:30','length':'1h','zone':'UTC'} | w.start",
        "negative length | {'days':['mon'],'start':'02:00','length':'-1h','zone':'UTC'} | w.length",
        "zero length | {'days':['mon'],'start':'02:00','length':'0m','zone':'UTC'} | w.length",
        "over 7 days | {'days':['mon'],'start':'02:00','length':'169h','zone':'UTC'} | w.length",
        "8 days | {'days':['mon'],'start':'02:00','length':'8d','zone':'UTC'} | w.length",
        "no unit | {'days':['mon'],'start':'02:00','length':'60','zone':'UTC'} | w.length",
        "empty days | {'days':[],'start':'02:00','length':'1h','zone':'UTC'} | w.days",
        "missing days | {'start':'02:00','length':'1h','zone':'UTC'} | w.days",
        "bad day | {'days':['funday'],'start':'02:00','length':'1h','zone':'UTC'} | w.days",
        "day twice | {'days':['mon','monday'],'start':'02:00','length':'1h','zone':'UTC'} | w.days",
        "NUL in zone | {'days':['mon'],'start':'02:00','length':'1h','zone':'UTC\\u0000'} | w.zone",
        "NUL in start | {'days':['mon'],'start':'02:00\\u0000','length':'1h','zone':'UTC'} | w.start",
        "number start | {'days':['mon'],'start':200,'length':'1h','zone':'UTC'} | w.start",
        "unknown field | {'days':['mon'],'start':'02:00','length':'1h','zone':'UTC','x':1} | w.x",
      })
  void hostileWindowsAreRefusedNamingTheField(String what, String body, String field) {
    assertThatThrownBy(() -> WindowForm.read(json(body.replace('\'', '"')), "w.", Set.of()))
        .as(what)
        .isInstanceOfSatisfying(
            InvalidQuietException.class, e -> assertThat(e.field()).isEqualTo(field));
  }
}
