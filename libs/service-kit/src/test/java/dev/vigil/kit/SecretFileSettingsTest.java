package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every secret setting {@code KEY} also takes {@code KEY_FILE}; neither value is ever echoed. */
class SecretFileSettingsTest {
  private static final String VALUE = "distinctive-Secret-7f3a";
  private static final Setting<String> TOKEN =
      Setting.secret("VIGIL_TEST_TOKEN", null).doc("Token.");
  private static final Setting<String> OPTIONAL =
      Setting.secret("VIGIL_TEST_OPTIONAL", "").doc("Optional secret.");
  private static final ConfigDef DEFINITION = ConfigDef.of(TOKEN, OPTIONAL);

  @Test
  void aSecretComesFromItsFileWithoutSurroundingWhitespace(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  " + VALUE + "\n");

    Values values =
        DEFINITION.parse(new Settings(Map.of("VIGIL_TEST_TOKEN_FILE", file.toString())));

    assertThat(values.get(TOKEN)).isEqualTo(VALUE);
    assertThat(values.get(OPTIONAL)).isNull();
    assertThat(values.toString()).doesNotContain(VALUE).contains("VIGIL_TEST_TOKEN=<secret>");
  }

  @Test
  void bothSetIsAnErrorNamingBothKeysAndNoValue(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("token"), VALUE);
    Map<String, String> env = new HashMap<>();
    env.put("VIGIL_TEST_TOKEN", VALUE);
    env.put("VIGIL_TEST_TOKEN_FILE", file.toString());

    assertThatThrownBy(() -> DEFINITION.parse(new Settings(env)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("VIGIL_TEST_TOKEN and VIGIL_TEST_TOKEN_FILE are both set")
        .message()
        .doesNotContain(VALUE);
  }

  @Test
  void anUnreadableFileIsAnErrorNamingTheKeyAndPathNeverContent(@TempDir Path dir)
      throws Exception {
    Path missing = dir.resolve("missing");
    Path directory = Files.createDirectory(dir.resolve("a-directory"));
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[SecretFile.MAX_BYTES + 1]);
    Path binary = Files.write(dir.resolve("binary"), new byte[] {(byte) 0xC3, (byte) 0x28});
    for (Path path : new Path[] {missing, directory, huge, binary}) {
      assertThatThrownBy(
              () ->
                  DEFINITION.parse(new Settings(Map.of("VIGIL_TEST_TOKEN_FILE", path.toString()))))
          .as("file %s", path)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_TEST_TOKEN_FILE=" + path);
    }
  }

  @Test
  void anEmptyFileForARequiredSecretIsAnError(@TempDir Path dir) throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");

    assertThatThrownBy(
            () -> DEFINITION.parse(new Settings(Map.of("VIGIL_TEST_TOKEN_FILE", empty.toString()))))
        .hasMessageContaining("VIGIL_TEST_TOKEN_FILE=" + empty + " is empty");
  }

  @Test
  void aSecretsInvalidValueIsNotEchoedEvenByItsParser(@TempDir Path dir) throws Exception {
    Setting<Integer> pin =
        new Setting<>("VIGIL_TEST_PIN", "0", "pin", true, raw -> Integer.parseInt(raw));
    Path file = Files.writeString(dir.resolve("pin"), "12ab-" + VALUE);

    assertThatThrownBy(
            () ->
                ConfigDef.of(pin)
                    .parse(new Settings(Map.of("VIGIL_TEST_PIN_FILE", file.toString()))))
        .hasMessageContaining("VIGIL_TEST_PIN=<secret> is invalid")
        .message()
        .doesNotContain(VALUE);
  }

  @Test
  void declaringASecretsFileKeyBesideItIsAProgrammingError() {
    assertThatThrownBy(
            () ->
                ConfigDef.of(TOKEN, Setting.string("VIGIL_TEST_TOKEN_FILE", "").doc("Token file.")))
        .hasMessageContaining("VIGIL_TEST_TOKEN_FILE is declared");
  }
}
