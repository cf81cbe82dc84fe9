package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Cycles of any length among {@code dependsOn} edges, and what is not one. */
class DependencyGraphTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                           | edges (child>parent,parent;...)        | cycle
            no edges                         | a>;b>                                  | none
            a chain                          | a>b;b>c;c>                             | none
            a diamond                        | a>b,c;b>d;c>d;d>                       | none
            an unknown parent ends a path    | a>ghost;ghost2>a                       | none
            two targets                      | a>b;b>a                                | a -> b -> a
            three targets                    | a>b;b>c;c>a                            | a -> b -> c -> a
            a cycle beside a clean branch    | a>x;x>;m>n;n>o;o>m                     | m -> n -> o -> m
            a cycle reached from a child     | a>b;b>c;c>b                            | b -> c -> b
          """)
  void findsEveryCycleAndOnlyCycles(String name, String edges, String expected) {
    Map<String, List<String>> parents = new HashMap<>();
    for (String edge : edges.split(";")) {
      String[] parts = edge.split(">", -1);
      parents.put(parts[0], parts[1].isEmpty() ? List.of() : Arrays.asList(parts[1].split(",")));
    }

    var cycle = new DependencyGraph(parents).cycle();

    assertThat(cycle.map(DependencyGraph::show).orElse("none")).isEqualTo(expected);
  }

  @Test
  void aChainOfTenThousandClosedAtTheEndIsFoundWithoutOverflowingTheStack() {
    Map<String, List<String>> parents = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      parents.put("t" + i, List.of("t" + (i + 1)));
    }
    parents.put("t10000", List.of("t0"));

    var cycle = new DependencyGraph(parents).cycle();

    assertThat(cycle).isPresent();
    assertThat(cycle.get()).hasSize(10_002).startsWith("t0", "t1").endsWith("t10000", "t0");
  }
}
