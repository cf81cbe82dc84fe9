package dev.vigil.kit.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CloserTest {
  private final List<String> closed = new ArrayList<>();

  @Test
  void closesInReverseOrderOfRegistration() {
    Closer closer = new Closer("test");
    closer.add("first", () -> closed.add("first"));
    closer.add("second", () -> closed.add("second"));
    closer.add("third", () -> closed.add("third"));

    closer.close();

    assertThat(closed).containsExactly("third", "second", "first");
  }

  @Test
  void keepsTheFirstFailureAndStillClosesEveryPart() {
    Closer closer = new Closer("test");
    closer.add("first", () -> closed.add("first"));
    closer.add(
        "second",
        () -> {
          throw new IllegalStateException("second broke");
        });
    closer.add(
        "third",
        () -> {
          throw new IllegalStateException("third broke");
        });

    assertThatThrownBy(closer::close)
        .hasMessage("third broke")
        .satisfies(
            e ->
                assertThat(e.getSuppressed())
                    .extracting(Throwable::getMessage)
                    .containsExactly("second broke"));
    assertThat(closed).containsExactly("first");
  }

  @Test
  void wrapsACheckedFailureNamingThePart() {
    Closer closer = new Closer("relay");
    closer.add(
        "pool",
        () -> {
          throw new java.io.IOException("disk gone");
        });

    assertThatThrownBy(closer::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("closing relay part pool failed")
        .hasRootCauseMessage("disk gone");
  }

  @Test
  void closeAfterAFailedStartAddsCloseFailuresToTheStartFailure() {
    Closer closer = new Closer("test");
    closer.add("started", () -> closed.add("started"));
    closer.add(
        "broken",
        () -> {
          throw new IllegalStateException("close broke");
        });
    RuntimeException startFailure = new RuntimeException("start broke");

    RuntimeException thrown = closer.closeAfter(startFailure);

    assertThat(thrown).isSameAs(startFailure);
    assertThat(thrown.getSuppressed())
        .extracting(Throwable::getMessage)
        .containsExactly("close broke");
    assertThat(closed).containsExactly("started");
  }

  @Test
  void restoresAnInterruptAfterClosingEveryPart() {
    Closer closer = new Closer("test");
    closer.add("first", () -> closed.add("first"));
    closer.add(
        "interrupted",
        () -> {
          throw new InterruptedException();
        });

    closer.close();

    assertThat(Thread.interrupted()).isTrue();
    assertThat(closed).containsExactly("first");
  }

  @Test
  void closesEachPartOnlyOnce() {
    Closer closer = new Closer("test");
    closer.add("only", () -> closed.add("only"));

    closer.close();
    closer.close();

    assertThat(closed).containsExactly("only");
  }
}
