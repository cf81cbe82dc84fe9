package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document's {@code Target} schema names exactly the fields a target definition may
 * have: a field the parser accepts but the document leaves out (or the reverse) fails here.
 */
class TargetSchemaDocumentedTest {
  private static final String DOCUMENT = "/dev/vigil/monitor/api/openapi.yaml";

  @Test
  void targetSchemaHasExactlyTheParsersFields() throws Exception {
    JsonNode target;
    try (InputStream in = TargetParser.class.getResourceAsStream(DOCUMENT)) {
      assertThat(in).as(DOCUMENT).isNotNull();
      target =
          new ObjectMapper(new YAMLFactory())
              .readTree(in)
              .path("components")
              .path("schemas")
              .path("Target")
              .path("properties");
    }
    Set<String> documented = new TreeSet<>();
    target.fieldNames().forEachRemaining(documented::add);
    assertThat(documented).isEqualTo(new TreeSet<>(TargetParser.FIELDS));
  }
}
