package dev.vigil.monitor.targets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.vigil.contract.ServiceNames;
import dev.vigil.monitor.quiet.InvalidQuietException;
import dev.vigil.monitor.quiet.PrefixWindows;
import dev.vigil.monitor.quiet.Window;
import dev.vigil.monitor.quiet.WindowForm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Reads the targets YAML file:
 *
 * <pre>
 * targets:
 *   - name: payments
 *     url: https://payments.internal/health
 *     interval: 10s
 *     timeout: 2s
 *     acceptedStatus: [200, 204]
 *     failureThreshold: 3
 *   - name: nightly-batch
 *     type: push
 *   - name: search
 *     url: https://search.internal/api/query
 *     method: POST
 *     headers:
 *       Content-Type: application/json
 *       Authorization: {valueFile: /run/secrets/search-token}
 *     body: '{"q": "health"}'
 *     maxLatency: 800ms
 *     jsonEquals: {/status: green}
 *     tlsExpiryDays: 14
 *   - name: postgres
 *     url: tcp://db.internal:5432
 *   - name: api-dns
 *     url: dns://api.example.com
 *     expectAddress: 10.0.0.7
 *   - name: reports
 *     url: https://reports.internal/health
 *     remindEvery: 30m
 *     maintenance:
 *       - {days: [sun], start: "02:00", length: 2h, zone: Europe/Berlin}
 * maintenance:            # optional: windows for every service whose name starts with a prefix
 *   - {prefix: batch-, days: [mon, tue, wed, thu, fri], start: "23:00", length: 90m, zone: UTC}
 * </pre>
 *
 * Every problem is an {@link InvalidTargetException} naming the file, the target and the field.
 */
public final class TargetFile {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private TargetFile() {}

  /**
   * Parses and validates every target in {@code file}; all or nothing.
   *
   * @throws InvalidTargetException if the file is unreadable, not YAML, or any target is invalid
   */
  public static List<TargetSpec> load(Path file) {
    String source = "targets file " + file;
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (JsonProcessingException e) {
      throw new InvalidTargetException(
          source, null, null, "not valid YAML: " + e.getOriginalMessage() + locationOf(e));
    } catch (IOException e) {
      throw new InvalidTargetException(source, null, null, "cannot be read: " + e);
    }
    if (root == null || !root.isObject() || !root.has("targets")) {
      throw new InvalidTargetException(
          source, null, "targets", "the file must have a top-level 'targets' list");
    }
    JsonNode list = root.get("targets");
    if (!list.isArray()) {
      throw new InvalidTargetException(source, null, "targets", "must be a list");
    }
    List<TargetSpec> targets = new ArrayList<>();
    Set<String> names = new HashSet<>();
    int position = 1;
    for (JsonNode element : list) {
      TargetSpec spec = TargetParser.parse(source, "#" + position, element, null, true);
      if (!names.add(spec.name())) {
        throw new InvalidTargetException(
            source, "#" + position + " '" + spec.name() + "'", "name", "is declared twice");
      }
      targets.add(spec);
      position++;
    }
    Map<String, List<String>> parents = new HashMap<>();
    targets.forEach(t -> parents.put(t.name(), t.dependsOn()));
    new DependencyGraph(parents)
        .cycle()
        .ifPresent(
            cycle -> {
              throw new InvalidTargetException(
                  source,
                  "'" + cycle.getFirst() + "'",
                  "dependsOn",
                  "dependency cycle: " + DependencyGraph.show(cycle));
            });
    return List.copyOf(targets);
  }

  /**
   * Parses the file's optional top-level {@code maintenance} list of prefix windows.
   *
   * @throws InvalidTargetException naming the file, the window ({@code #n}) and the field
   */
  public static List<PrefixWindows.Entry> loadWindows(Path file) {
    String source = "targets file " + file;
    JsonNode root;
    try {
      root = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new InvalidTargetException(source, null, null, "cannot be read: " + e);
    }
    JsonNode list = root == null ? null : root.get("maintenance");
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new InvalidTargetException(source, null, "maintenance", "must be a list of windows");
    }
    List<PrefixWindows.Entry> windows = new ArrayList<>();
    int position = 1;
    for (JsonNode element : list) {
      String label = "maintenance #" + position++;
      try {
        Window window = WindowForm.read(element, "", Set.of("prefix"));
        JsonNode prefix = element.get("prefix");
        if (prefix == null || !prefix.isTextual() || !ServiceNames.isValid(prefix.asText())) {
          throw new InvalidTargetException(
              source, label, "prefix", "is required: the start of service names, [a-z0-9_-]");
        }
        windows.add(new PrefixWindows.Entry(UUID.randomUUID(), prefix.asText(), window, "file"));
      } catch (InvalidQuietException e) {
        throw new InvalidTargetException(source, label, e.field(), e.reason());
      }
    }
    return List.copyOf(windows);
  }

  private static String locationOf(JsonProcessingException e) {
    return e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")";
  }
}
