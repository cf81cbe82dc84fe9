package dev.vigil.kit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The settings of one service, in the order the README lists them, plus the rules that involve
 * several of them ("the lease must exceed connect + read timeout"). {@link #parse} reads them all
 * and fails once, listing every missing or invalid key; {@link #markdownRows} renders the README
 * table. Modelled on Kafka's {@code ConfigDef}; common settings come from {@link CommonSettings}.
 */
public final class ConfigDef {
  private final List<Setting<?>> settings;
  private final List<Rule> rules;

  /** A rule over several settings, e.g. "A must exceed B + C": its text is also the error. */
  private record Rule(String text, Predicate<Values> holds) {}

  private ConfigDef(List<Setting<?>> settings, List<Rule> rules) {
    Set<String> keys = new HashSet<>();
    for (Setting<?> setting : settings) {
      if (setting.doc().isBlank()) {
        throw new IllegalArgumentException("setting " + setting.key() + " has no doc");
      }
      if (!keys.add(setting.key())) {
        throw new IllegalArgumentException("setting " + setting.key() + " is declared twice");
      }
    }
    this.settings = List.copyOf(settings);
    this.rules = List.copyOf(rules);
  }

  /** A definition of {@code settings}, in this order. */
  public static ConfigDef of(Setting<?>... settings) {
    return new ConfigDef(List.of(settings), List.of());
  }

  /**
   * Adds a rule over several settings. {@code text} names the keys and says what must hold ("A must
   * exceed B"); it is the startup error when {@code holds} is false, and the README lists it under
   * the table. Rules run only once every setting parsed, so they never see an invalid value.
   */
  public ConfigDef rule(String text, Predicate<Values> holds) {
    List<Rule> more = new ArrayList<>(rules);
    more.add(new Rule(text, holds));
    return new ConfigDef(settings, more);
  }

  /** The texts of the rules over several settings, in order. */
  public List<String> ruleTexts() {
    return rules.stream().map(Rule::text).toList();
  }

  public List<Setting<?>> settings() {
    return settings;
  }

  /**
   * Reads and validates every setting.
   *
   * @throws ConfigException listing every missing or invalid key with the reason, never a secret
   */
  public Values parse(Settings source) {
    Map<String, Object> values = new LinkedHashMap<>();
    settings.forEach(setting -> values.put(setting.key(), source.get(setting)));
    source.validate();
    Values parsed = new Values(settings, values);
    for (Rule rule : rules) {
      if (!rule.holds().test(parsed)) {
        source.problem(rule.text());
      }
    }
    source.validate();
    return parsed;
  }

  /** The README rows: {@code | `KEY` | default | meaning |}, one per setting, in order. */
  public List<String> markdownRows() {
    return settings.stream().map(ConfigDef::row).toList();
  }

  private static String row(Setting<?> setting) {
    String shown;
    if (setting.required()) {
      shown = "**required**";
    } else if (setting.computedDefault()) {
      shown = "(computed)";
    } else if (setting.defaultValue().isEmpty()) {
      shown = "(none)";
    } else {
      shown = "`" + setting.defaultValue() + "`";
    }
    String rules = setting.rules().isEmpty() ? "" : " (" + String.join("; ", setting.rules()) + ")";
    String doc = (setting.doc() + rules + (setting.secret() ? " Secret." : "")).replace("|", "\\|");
    return "| `" + setting.key() + "` | " + shown + " | " + doc + " |";
  }
}
