package dev.vigil.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The AsyncAPI document and the code name the same record headers. */
class AlertTopicDocumentTest {

  @Test
  void theAsyncApiDocumentRequiresExactlyTheHeadersTheTopicCarries() throws Exception {
    JsonNode headers;
    try (InputStream in = getClass().getResourceAsStream("/contract/alert-topic.asyncapi.yaml")) {
      assertThat(in).isNotNull();
      headers =
          new ObjectMapper(new YAMLFactory())
              .readTree(in)
              .at("/components/messages/alertEvent/headers");
    }
    List<String> required = new ArrayList<>();
    headers.path("required").forEach(name -> required.add(name.asText()));
    List<String> described = new ArrayList<>();
    headers.path("properties").fieldNames().forEachRemaining(described::add);

    assertThat(required).containsExactlyElementsOf(AlertTopic.HEADERS);
    assertThat(described).containsExactlyElementsOf(AlertTopic.HEADERS);
    assertThat(headers.path("additionalProperties").asBoolean(true)).isFalse();
    assertThat(headers.at("/properties/ce_source/enum").toString())
        .isEqualTo("[\"" + AlertTopic.CE_SOURCE + "\",null]");
    for (AlertKind kind : AlertKind.values()) {
      assertThat(headers.at("/properties/ce_type/enum").toString())
          .contains(AlertTopic.cloudEventType(kind));
    }
  }

  @Test
  void theHeadersOfNullableOutboxColumnsAndOnlyTheyMayBeNull() throws Exception {
    JsonNode properties;
    try (InputStream in = getClass().getResourceAsStream("/contract/alert-topic.asyncapi.yaml")) {
      properties =
          new ObjectMapper(new YAMLFactory())
              .readTree(in)
              .at("/components/messages/alertEvent/headers/properties");
    }
    List<String> nullable = new ArrayList<>();
    properties
        .fields()
        .forEachRemaining(
            header -> {
              boolean allowsNull = header.getValue().path("type").toString().contains("\"null\"");
              if (allowsNull) {
                nullable.add(header.getKey());
              }
              // A value list (an enum) must say the same as the type, or null would still be
              // refused.
              JsonNode values = header.getValue().path("enum");
              if (!values.isMissingNode()) {
                assertThat(values.toString().contains("null"))
                    .as("enum of %s allows null as its type does", header.getKey())
                    .isEqualTo(allowsNull);
              }
              assertThat(allowsNull && header.getValue().has("const"))
                  .as("%s may be null, but a const refuses null", header.getKey())
                  .isFalse();
            });

    // The columns the CloudEvents trigger fills (monitor migration V10: null on older rows) and the
    // traceparent (V12, null when unknown); every other header comes from a column never null.
    assertThat(nullable)
        .containsExactly(
            AlertTopic.HEADER_CE_SPECVERSION,
            AlertTopic.HEADER_CE_SOURCE,
            AlertTopic.HEADER_CE_TYPE,
            AlertTopic.HEADER_CE_TIME,
            AlertTopic.HEADER_CONTENT_TYPE,
            AlertTopic.HEADER_TRACEPARENT);
  }
}
