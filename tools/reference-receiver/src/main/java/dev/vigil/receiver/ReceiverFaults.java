package dev.vigil.receiver;

import dev.vigil.contract.ServiceNames;
import dev.vigil.kit.SafeText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Misbehaviour injected into the reference receiver, for tests and fault drills. Rules apply in the
 * order added; each applies to the next {@code times} matching requests (optionally only for one
 * service) and is then used up.
 *
 * <p>Text form (rules separated by {@code ;}): {@code status=503 times=5 service=web}, {@code
 * retry-after=2 times=1}, {@code redirect=http://elsewhere/ times=1}, {@code delay=2s times=3},
 * {@code drop times=1} (store, then drop the connection: the acknowledgement is lost).
 */
public final class ReceiverFaults {
  /** What a rule does to a matching request. */
  public enum Kind {
    /** Answer a status without storing. */
    STATUS,
    /** Answer 429 with {@code Retry-After} seconds, without storing. */
    RETRY_AFTER,
    /** Answer 302 with a {@code Location}, without storing. */
    REDIRECT,
    /** Wait, then handle normally. */
    DELAY,
    /** Store, then close the connection without answering. */
    DROP_AFTER_STORE
  }

  /** One rule; {@code service} null matches every service. */
  public record Fault(Kind kind, int status, Duration delay, String location, String service) {}

  private final List<Fault> faults = new ArrayList<>();
  private final List<int[]> remaining = new ArrayList<>();

  /** Answers {@code status} to the next {@code times} requests (of {@code service}, or all). */
  public ReceiverFaults failWith(int status, int times, String service) {
    return add(new Fault(Kind.STATUS, status, null, null, service), times);
  }

  /** Answers 429 with {@code Retry-After: seconds}. */
  public ReceiverFaults retryAfter(int seconds, int times, String service) {
    return add(new Fault(Kind.RETRY_AFTER, 429, Duration.ofSeconds(seconds), null, service), times);
  }

  /** Answers 302 pointing at {@code location}. */
  public ReceiverFaults redirect(String location, int times, String service) {
    return add(new Fault(Kind.REDIRECT, 302, null, location, service), times);
  }

  /** Delays the next requests by {@code delay}. */
  public ReceiverFaults delay(Duration delay, int times, String service) {
    return add(new Fault(Kind.DELAY, 0, delay, null, service), times);
  }

  /** Stores the next requests, then drops the connection instead of answering. */
  public ReceiverFaults dropAfterStore(int times, String service) {
    return add(new Fault(Kind.DROP_AFTER_STORE, 0, null, null, service), times);
  }

  /** Removes every rule. */
  public synchronized void clear() {
    faults.clear();
    remaining.clear();
  }

  private synchronized ReceiverFaults add(Fault fault, int times) {
    faults.add(fault);
    remaining.add(new int[] {times});
    return this;
  }

  /** Takes one use of the first rule matching {@code service}, if any. */
  synchronized Optional<Fault> next(String service) {
    for (int i = 0; i < faults.size(); i++) {
      Fault fault = faults.get(i);
      int[] left = remaining.get(i);
      if (left[0] > 0 && (fault.service() == null || fault.service().equals(service))) {
        if (left[0] != Integer.MAX_VALUE) {
          left[0]--;
        }
        return Optional.of(fault);
      }
    }
    return Optional.empty();
  }

  /**
   * Parses the text form into a new rule set.
   *
   * @throws IllegalArgumentException naming the broken rule
   */
  public static ReceiverFaults parse(String text) {
    ReceiverFaults faults = new ReceiverFaults();
    faults.addAll(text);
    return faults;
  }

  /**
   * Adds the rules written in text form; either all of them or, when one is broken, none.
   *
   * @throws IllegalArgumentException naming the broken rule: an unknown word, a status outside
   *     100..599, times below 1, a service that is not a service name
   */
  public ReceiverFaults addAll(String text) {
    ReceiverFaults parsed = new ReceiverFaults();
    parsed.parseInto(text);
    synchronized (this) {
      faults.addAll(parsed.faults);
      remaining.addAll(parsed.remaining);
    }
    return this;
  }

  private void parseInto(String text) {
    for (String rule : text.split(";")) {
      if (rule.isBlank()) {
        continue;
      }
      int times = Integer.MAX_VALUE;
      String service = null;
      String kind = null;
      String value = null;
      for (String word : rule.strip().split("\\s+")) {
        int eq = word.indexOf('=');
        String key = eq < 0 ? word : word.substring(0, eq);
        String arg = eq < 0 ? null : word.substring(eq + 1);
        switch (key) {
          case "times" -> times = number("times", arg);
          case "service" -> service = arg;
          case "status", "retry-after", "redirect", "delay", "drop" -> {
            kind = key;
            value = arg;
          }
          default -> throw new IllegalArgumentException("unknown fault word " + shown(key));
        }
      }
      if (kind == null) {
        throw new IllegalArgumentException("fault rule " + shown(rule.strip()) + " has no kind");
      }
      if (times < 1) {
        throw new IllegalArgumentException("fault rule times must be at least 1");
      }
      if (service != null && !ServiceNames.isValid(service)) {
        throw new IllegalArgumentException("fault rule service is not a service name");
      }
      switch (kind) {
        case "status" -> {
          int status = number("status", value);
          if (status < 100 || status > 599) {
            throw new IllegalArgumentException("fault rule status must be 100..599");
          }
          failWith(status, times, service);
        }
        case "retry-after" -> retryAfter(number("retry-after", value), times, service);
        case "redirect" -> redirect(value, times, service);
        case "delay" ->
            delay(
                dev.vigil.kit.Setting.duration("D", "1s").range("0s", "1h").parse(value),
                times,
                service);
        default -> dropAfterStore(times, service);
      }
    }
  }

  /** {@code arg} as a whole number, or an error naming the word and showing what was given. */
  private static int number(String word, String arg) {
    try {
      return Integer.parseInt(arg);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "fault rule " + word + " must be a whole number, was " + shown(arg));
    }
  }

  /** {@code text} quoted for an error message, made safe and cut by {@link SafeText}. */
  static String shown(String text) {
    return text == null ? "nothing" : "'" + SafeText.text(text, 40) + "'";
  }
}
