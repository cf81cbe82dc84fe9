package dev.vigil.kit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * The settings of one service, in the order the README lists them, plus the rules that involve
 * several of them ("the lease must exceed connect + read timeout"). {@link #parse} reads them all
 * and fails once, listing every missing or invalid key; {@link #markdownRows} renders the README
 * table. Modelled on Kafka's {@code ConfigDef}; common settings come from {@link CommonSettings}.
 */
public final class ConfigDef {
  private final List<Setting<?>> settings;
  private final List<Rule> rules;
  private final List<Prefix> prefixes;

  /**
   * A family of pass-through variables, {@code <prefix><name>}, handed on as they are (e.g. any
   * Kafka client property); the code that uses them validates the names.
   */
  private record Prefix(String prefix, String doc) {}

  /** A rule over several settings, e.g. "A must exceed B + C": its text is also the error. */
  private record Rule(String text, Predicate<Values> holds) {}

  private ConfigDef(List<Setting<?>> settings, List<Rule> rules) {
    this(settings, rules, List.of());
  }

  private ConfigDef(List<Setting<?>> settings, List<Rule> rules, List<Prefix> prefixes) {
    Set<String> keys = new HashSet<>();
    for (Setting<?> setting : settings) {
      if (setting.doc().isBlank()) {
        throw new IllegalArgumentException("setting " + setting.key() + " has no doc");
      }
      if (!keys.add(setting.key())) {
        throw new IllegalArgumentException("setting " + setting.key() + " is declared twice");
      }
    }
    for (Setting<?> setting : settings) {
      if (setting.secret() && keys.contains(setting.fileKey())) {
        throw new IllegalArgumentException(
            "setting " + setting.fileKey() + " is declared, but every secret takes its _FILE");
      }
    }
    this.settings = List.copyOf(settings);
    this.rules = List.copyOf(rules);
    this.prefixes = List.copyOf(prefixes);
  }

  /**
   * This definition with {@code more} settings after its own, e.g. a group shared by several
   * services ({@link dev.vigil.kit.kafka.KafkaSettings}).
   */
  public ConfigDef and(List<Setting<?>> more) {
    List<Setting<?>> all = new ArrayList<>(settings);
    all.addAll(more);
    return new ConfigDef(all, rules, prefixes);
  }

  /**
   * This definition with a group of settings, rules and pass-through families added by {@code
   * group}, e.g. {@code .with(KafkaSettings::addTo)}.
   */
  public ConfigDef with(UnaryOperator<ConfigDef> group) {
    return group.apply(this);
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
    return new ConfigDef(settings, more, prefixes);
  }

  /**
   * Adds a family of pass-through variables {@code <prefix><name>}: {@link Values#prefixed} gives
   * them by name, and the README lists the family as one row. The values are never shown.
   */
  public ConfigDef prefixed(String prefix, String doc) {
    if (!prefix.matches("VIGIL_[A-Z0-9_]+_")) {
      throw new IllegalArgumentException("prefix '" + prefix + "' must look like VIGIL_…_");
    }
    List<Prefix> more = new ArrayList<>(prefixes);
    more.add(new Prefix(prefix, doc));
    return new ConfigDef(settings, rules, more);
  }

  /** The prefixes of the pass-through families, in order. */
  public List<String> prefixes() {
    return prefixes.stream().map(Prefix::prefix).toList();
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
    Map<String, Map<String, String>> passThrough = new LinkedHashMap<>();
    prefixes.forEach(p -> passThrough.put(p.prefix(), source.withPrefix(p.prefix())));
    Values parsed = new Values(settings, values, passThrough);
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
    List<String> rows = new ArrayList<>(settings.stream().map(ConfigDef::row).toList());
    prefixes.forEach(
        p ->
            rows.add(
                "| `" + p.prefix() + "<name>` | (none) | " + p.doc().replace("|", "\\|") + " |"));
    return rows;
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
    String secret =
        setting.secret()
            ? " Secret; or the path of a file holding it in `" + setting.fileKey() + "`."
            : "";
    String doc = (setting.doc() + rules + secret).replace("|", "\\|");
    return "| `" + setting.key() + "` | " + shown + " | " + doc + " |";
  }
}
