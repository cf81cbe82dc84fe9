package dev.vigil.monitor.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UptimeTest {
  @Test
  void noChecksIsNoDataNotHundredPercent() {
    assertThat(Uptime.NONE.percent()).isEqualTo("no data");
    assertThat(Uptime.NONE.grade()).isEqualTo("none");
    assertThat(Uptime.NONE.basisPoints()).isEqualTo(-1);
  }

  @Test
  void everyCheckUpIsHundredPercent() {
    assertThat(new Uptime(8640, 0).percent()).isEqualTo("100.00%");
    assertThat(new Uptime(1, 0).grade()).isEqualTo("good");
  }

  @Test
  void oneDownAmongAMillionNeverShowsHundredPercent() {
    assertThat(new Uptime(999_999, 1).percent()).isEqualTo("99.99%");
    assertThat(new Uptime(Long.MAX_VALUE / 2, 1).percent()).isEqualTo("99.99%");
  }

  @Test
  void percentagesAreCutNotRounded() {
    assertThat(new Uptime(2, 1).percent()).isEqualTo("66.66%"); // 66.666… cut, not 66.67
    assertThat(new Uptime(1999, 1).percent()).isEqualTo("99.95%");
    assertThat(new Uptime(1, 3).percent()).isEqualTo("25.00%");
    assertThat(new Uptime(0, 5).percent()).isEqualTo("0.00%");
    assertThat(new Uptime(1, 19).percent()).isEqualTo("5.00%");
  }

  @Test
  void gradesFollowTheThresholds() {
    assertThat(new Uptime(999, 1).grade()).isEqualTo("good"); // 99.90
    assertThat(new Uptime(998, 2).grade()).isEqualTo("fair"); // 99.80
    assertThat(new Uptime(99, 1).grade()).isEqualTo("fair"); // 99.00
    assertThat(new Uptime(98, 2).grade()).isEqualTo("poor"); // 98.00
    assertThat(new Uptime(95, 5).grade()).isEqualTo("poor"); // 95.00
    assertThat(new Uptime(94, 6).grade()).isEqualTo("bad");
  }

  @Test
  void negativeCountsAreRefused() {
    assertThatThrownBy(() -> new Uptime(-1, 0)).hasMessageContaining("negative");
  }
}
