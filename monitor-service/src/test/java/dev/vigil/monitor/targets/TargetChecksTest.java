package dev.vigil.monitor.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Parsing and validation of the checks beyond the status code, from the file and the API. */
class TargetChecksTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void fileDeclaresEveryCheck() throws IOException {
    Path file =
        write(
            """
            targets:
              - name: search
                url: https://search.internal/api
                method: post
                headers:
                  Content-Type: application/json
                  Authorization: {valueFile: /run/secrets/search-token}
                body: '{"q": "health"}'
                maxLatency: 800ms
                bodyContains: ok
                bodyNotContains: [error, fatal]
                jsonEquals: {/status: green, /nodes/0/up: true, /count: 3, /a~1b: null}
                tlsExpiryDays: 14
              - name: postgres
                url: tcp://db.internal:5432
                timeout: 2s
              - name: api-dns
                type: dns
                url: dns://api.example.com
                expectAddress: [10.0.0.7, "::1"]
            """);
    List<TargetSpec> targets = TargetFile.load(file);

    TargetSpec search = targets.get(0);
    assertThat(search.method()).isEqualTo("POST");
    Checks checks = search.checks();
    assertThat(checks.headers()).containsKeys("Content-Type", "Authorization");
    assertThat(checks.headers().get("Authorization").file())
        .isEqualTo(Path.of("/run/secrets/search-token"));
    assertThat(checks.body()).isEqualTo("{\"q\": \"health\"}");
    assertThat(checks.maxLatency()).isEqualTo(Duration.ofMillis(800));
    assertThat(checks.bodyContains()).containsExactly("ok");
    assertThat(checks.bodyNotContains()).containsExactly("error", "fatal");
    assertThat(checks.json()).hasSize(4);
    assertThat(checks.json().get(3).pointer().toString()).isEqualTo("/a~1b");
    assertThat(checks.tlsExpiryDays()).isEqualTo(14);
    assertThat(checks.needsBody()).isTrue();

    assertThat(targets.get(1).kind()).isEqualTo(TargetKind.TCP);
    assertThat(targets.get(1).checks()).isEqualTo(Checks.NONE);
    assertThat(targets.get(2).kind()).isEqualTo(TargetKind.DNS);
    assertThat(targets.get(2).checks().expectAddresses())
        .containsExactly(InetAddress.getByName("10.0.0.7"), InetAddress.getByName("::1"));
  }

  @Test
  void storedFormReadsBackToTheSameChecksAndRedactsOnlyForDisplay() throws IOException {
    TargetSpec target =
        api(
            """
            {"name": "a", "url": "https://x.test/h", "method": "PUT",
             "headers": {"X-Key": "s3cret"}, "body": "{}", "maxLatency": "2s",
             "bodyContains": ["up"], "jsonEquals": {"/n": 1.5, "/s": "x"}, "tlsExpiryDays": 7}
            """);
    ObjectNode stored = CheckForm.write(target.checks(), false);
    Checks back =
        TargetParser.storedChecks(
            "a", stored, TargetKind.HTTP, "PUT", target.url(), target.timeout());
    assertThat(back).isEqualTo(target.checks());
    assertThat(stored.toString()).contains("s3cret");

    JsonNode shown = target.checks().redactedJson();
    assertThat(shown.toString()).doesNotContain("s3cret");
    assertThat(shown.at("/headers/X-Key").asText()).isEqualTo("<redacted>");
    assertThat(target.checks().toString()).doesNotContain("s3cret");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          unknown field          | "bodyContainz": "x"                                  | bodyContainz             | unknown field
          wrong type latency     | "maxLatency": 800                                    | maxLatency               | needs a unit
          latency over timeout   | "maxLatency": "10s", "timeout": "5s"                  | maxLatency               | between
          huge latency           | "maxLatency": "999999999h"                           | maxLatency               | between
          tls days too many      | "tlsExpiryDays": 100000                              | tlsExpiryDays            | between 1 and 365
          tls days as text       | "tlsExpiryDays": "14"                                | tlsExpiryDays            | whole number
          tls on plain http      | "url": "http://x.test/", "tlsExpiryDays": 3          | tlsExpiryDays            | https
          contains wrong type    | "bodyContains": 5                                    | bodyContains             | non-empty string
          contains NUL           | "bodyContains": "a\\u0000b"                          | bodyContains             | NUL
          empty contains list    | "bodyNotContains": []                                | bodyNotContains          | 1 to 16
          pointer without slash  | "jsonEquals": {"status": "ok"}                        | jsonEquals               | must start with '/'
          pointer bad escape     | "jsonEquals": {"/a~2": "ok"}                          | jsonEquals               | '~' must be followed
          pointer to object      | "jsonEquals": {"/a": {"b": 1}}                        | jsonEquals./a            | string, number, boolean
          header CRLF            | "headers": {"X-A": "v\\r\\nX-Injected: 1"}           | headers.X-A              | control characters
          header NUL             | "headers": {"X-A": "v\\u0000"}                       | headers.X-A              | control characters
          header bad name        | "headers": {"X A": "v"}                              | headers                  | not a valid header name
          header restricted      | "headers": {"Host": "evil"}                          | headers.Host             | cannot be overridden
          header twice           | "headers": {"X-A": "1", "x-a": "2"}                  | headers.x-a              | declared twice
          header file via API    | "headers": {"X-A": {"valueFile": "/etc/shadow"}}     | headers.X-A.valueFile    | only allowed in the targets file
          header wrong type      | "headers": ["X-A"]                                   | headers                  | mapping
          body with GET          | "body": "{}"                                         | body                     | POST, PUT or PATCH
          body not a string      | "method": "POST", "body": {"a": 1}                    | body                     | must be a string
          body with NUL          | "method": "POST", "body": "a\\u0000"                 | body                     | NUL
          unknown method         | "method": "TRACE"                                    | method                   | must be one of
          method NUL             | "method": "GE\\u0000T"                               | method                   | control characters
          HEAD with body check   | "method": "HEAD", "bodyContains": "x"                | method                   | no body
          bad port               | "url": "http://x.test:70000/"                        | url                      | between 1 and 65535
          tcp without port       | "url": "tcp://db.test"                               | url                      | needs a port
          tcp port zero          | "url": "tcp://db.test:0"                             | url                      | between 1 and 65535
          tcp with path          | "url": "tcp://db.test:5432/x?y=1"                    | url                      | only a host
          dns with port          | "url": "dns://x.test:53"                             | url                      | no port
          type and scheme differ | "type": "tcp", "url": "http://x.test/"               | url                      | tcp://
          unknown type           | "type": "icmp"                                       | type                     | http, tcp, dns or push
          body check on tcp      | "url": "tcp://db.test:1", "bodyContains": "x"        | bodyContains             | http targets only
          method on tcp          | "url": "tcp://db.test:1", "method": "POST"           | method                   | http targets only
          address on http        | "expectAddress": "10.0.0.1"                          | expectAddress            | dns targets only
          address not an IP      | "url": "dns://x.test", "expectAddress": "evil.test"  | expectAddress            | not an IPv4 or IPv6
          address octet too big  | "url": "dns://x.test", "expectAddress": "999.1.1.1"  | expectAddress            | not an IPv4 or IPv6
          latency on push        | "type": "push", "url": null, "maxLatency": "1s"      | maxLatency               | push target
          """)
  void hostileDefinitionIsRefusedNamingTheFieldAndReason(
      String why, String fields, String field, String reason) {
    String body = "{\"name\": \"t\", \"url\": \"https://x.test/h\", " + fields + "}";
    assertThatThrownBy(() -> api(body))
        .isInstanceOf(InvalidTargetException.class)
        .satisfies(e -> assertThat(((InvalidTargetException) e).field()).isEqualTo(field))
        .hasMessageContaining(reason);
  }

  @Test
  void tooManyHeadersAndHugeValuesAreRefused() {
    StringBuilder many = new StringBuilder();
    for (int i = 0; i <= CheckFields.MAX_HEADERS; i++) {
      many.append(i == 0 ? "" : ", ").append("\"X-").append(i).append("\": \"v\"");
    }
    assertThatThrownBy(
            () ->
                api("{\"name\": \"t\", \"url\": \"http://x.test/\", \"headers\": {" + many + "}}"))
        .hasMessageContaining("at most " + CheckFields.MAX_HEADERS);
    String huge = "x".repeat(CheckFields.MAX_REQUEST_BODY + 1);
    assertThatThrownBy(
            () ->
                api(
                    "{\"name\": \"t\", \"url\": \"http://x.test/\", \"method\": \"POST\", \"body\": \""
                        + huge
                        + "\"}"))
        .hasMessageContaining("field 'body'")
        .hasMessageContaining("longer than");
  }

  @Test
  void relativeValueFileIsRefusedInTheFile() throws IOException {
    Path file =
        write(
            """
            targets:
              - name: a
                url: http://x.test/
                headers: {X-Token: {valueFile: secrets/token}}
            """);
    assertThatThrownBy(() -> TargetFile.load(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("field 'headers.X-Token.valueFile'")
        .hasMessageContaining("absolute path");
  }

  private static TargetSpec api(String json) throws IOException {
    return TargetParser.parse("request body", "", JSON.readTree(json), null);
  }

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "targets", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
