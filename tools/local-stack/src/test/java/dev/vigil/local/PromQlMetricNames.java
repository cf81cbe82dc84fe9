package dev.vigil.local;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression reads, found by a small tokenizer rather than a parser:
 * string literals, label matchers ({@code {…}}), ranges and subqueries ({@code […]}), numbers,
 * durations and Grafana variables ({@code $…}) are skipped; an identifier is a metric name unless
 * it is a keyword or an aggregation operator, is followed by {@code (} (a function call), or is a
 * label in a {@code by}, {@code without}, {@code on}, {@code ignoring} or {@code group_…} list.
 * Selectors by {@code {__name__="…"}} alone are not reported.
 */
final class PromQlMetricNames {
  private static final Set<String> LABEL_LISTS =
      Set.of("by", "without", "on", "ignoring", "group_left", "group_right");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan");
  private static final Set<String> AGGREGATIONS =
      Set.of(
          "sum",
          "min",
          "max",
          "avg",
          "group",
          "stddev",
          "stdvar",
          "count",
          "count_values",
          "bottomk",
          "topk",
          "quantile",
          "limitk",
          "limit_ratio");

  private PromQlMetricNames() {}

  static Set<String> of(String expression) {
    Set<String> names = new TreeSet<>();
    String expr = expression;
    int n = expr.length();
    int i = 0;
    while (i < n) {
      char c = expr.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = afterString(expr, i);
      } else if (c == '{') {
        i = afterBlock(expr, i, '}');
      } else if (c == '[') {
        i = afterBlock(expr, i, ']');
      } else if (c == '#') {
        int end = expr.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '$' || Character.isDigit(c) || (c == '.' && i + 1 < n && isDigit(expr, i))) {
        i++;
        while (i < n && (isNamePart(expr.charAt(i)) || expr.charAt(i) == '.')) {
          i++;
        }
      } else if (isNameStart(c)) {
        int start = i;
        while (i < n && isNamePart(expr.charAt(i))) {
          i++;
        }
        String word = expr.substring(start, i);
        String lower = word.toLowerCase(Locale.ROOT);
        int next = skipSpaces(expr, i);
        boolean call = next < n && expr.charAt(next) == '(';
        if (LABEL_LISTS.contains(lower)) {
          if (call) {
            i = afterBlock(expr, next, ')');
          }
        } else if (!call && !KEYWORDS.contains(lower) && !AGGREGATIONS.contains(lower)) {
          names.add(word);
        }
      } else {
        i++;
      }
    }
    return names;
  }

  private static boolean isDigit(String expr, int i) {
    return Character.isDigit(expr.charAt(i + 1));
  }

  private static boolean isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }

  private static boolean isNamePart(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
  }

  private static int skipSpaces(String expr, int i) {
    while (i < expr.length() && Character.isWhitespace(expr.charAt(i))) {
      i++;
    }
    return i;
  }

  /** The index after the string literal starting at {@code start} (backslash escapes honoured). */
  private static int afterString(String expr, int start) {
    char quote = expr.charAt(start);
    int i = start + 1;
    while (i < expr.length()) {
      char c = expr.charAt(i);
      if (c == '\\' && quote != '`') {
        i += 2;
      } else if (c == quote) {
        return i + 1;
      } else {
        i++;
      }
    }
    throw new IllegalArgumentException("unterminated string in PromQL: " + expr);
  }

  /** The index after the block opened at {@code start} and closed by {@code close}. */
  private static int afterBlock(String expr, int start, char close) {
    char open = expr.charAt(start);
    int depth = 0;
    int i = start;
    while (i < expr.length()) {
      char c = expr.charAt(i);
      if (c == '"' || c == '\'' || c == '`') {
        i = afterString(expr, i);
        continue;
      }
      if (c == open) {
        depth++;
      } else if (c == close && --depth == 0) {
        return i + 1;
      }
      i++;
    }
    throw new IllegalArgumentException("unbalanced '" + open + "' in PromQL: " + expr);
  }
}
