package dev.vigil.monitor.targets;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@code dependsOn} edges of a set of targets, as a pure function: the first cycle among them,
 * of any length, in the order of its edges ({@code a -> b -> c -> a}). Parents that are not in the
 * set end a path (an unknown parent cannot close a cycle until it is defined, and is checked then).
 */
final class DependencyGraph {
  private final Map<String, List<String>> parents;

  /** {@code parents}: each target's parents by name. */
  DependencyGraph(Map<String, List<String>> parents) {
    this.parents = new TreeMap<>(parents);
  }

  /**
   * A cycle through the graph, as the names along it with the first repeated at the end (e.g.
   * {@code [a, b, a]}), or empty when there is none. Iterative depth-first search, so a long chain
   * cannot overflow the stack.
   */
  Optional<List<String>> cycle() {
    Map<String, Integer> colour = new HashMap<>(); // absent: unvisited, 1: on the path, 2: done
    for (String start : parents.keySet()) {
      if (colour.containsKey(start)) {
        continue;
      }
      Deque<String> path = new ArrayDeque<>();
      Deque<Integer> next = new ArrayDeque<>();
      path.push(start);
      next.push(0);
      colour.put(start, 1);
      while (!path.isEmpty()) {
        String node = path.peek();
        int index = next.pop();
        List<String> edges = parents.getOrDefault(node, List.of());
        if (index >= edges.size()) {
          colour.put(node, 2);
          path.pop();
          continue;
        }
        next.push(index + 1);
        String parent = edges.get(index);
        if (!parents.containsKey(parent)) {
          continue;
        }
        Integer seen = colour.get(parent);
        if (seen == null) {
          colour.put(parent, 1);
          path.push(parent);
          next.push(0);
        } else if (seen == 1) {
          List<String> cycle = new ArrayList<>();
          List<String> order = new ArrayList<>(path);
          java.util.Collections.reverse(order);
          cycle.addAll(order.subList(order.indexOf(parent), order.size()));
          cycle.add(parent);
          return Optional.of(List.copyOf(cycle));
        }
      }
    }
    return Optional.empty();
  }

  /** How a cycle is shown in a message: {@code a -> b -> a}. */
  static String show(List<String> cycle) {
    return String.join(" -> ", cycle);
  }
}
