package dev.vigil.kit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BearerTokenTest {
  private final BearerToken token = new BearerToken("s3cret");

  @Test
  void acceptsOnlyTheExactTokenAfterBearer() {
    assertThat(token.matches("Bearer s3cret")).isTrue();
    assertThat(token.matches("Bearer s3cret ")).isTrue();
    assertThat(token.matches("Bearer s3cre")).isFalse();
    assertThat(token.matches("Bearer s3cretX")).isFalse();
    assertThat(token.matches("bearer s3cret")).isFalse();
    assertThat(token.matches("Basic s3cret")).isFalse();
    assertThat(token.matches("s3cret")).isFalse();
    assertThat(token.matches("Bearer ")).isFalse();
    assertThat(token.matches("")).isFalse();
    assertThat(token.matches(null)).isFalse();
  }

  @Test
  void comparesBytesNotCharactersSoLookAlikesFail() {
    assertThat(token.matches("Bearer s3cr\u0435t")).isFalse();
  }

  @Test
  void refusesABlankTokenWhichWouldAcceptAnEmptyHeader() {
    assertThatThrownBy(() -> new BearerToken(" ")).hasMessageContaining("must not be blank");
  }

  @Test
  void neverShowsTheToken() {
    assertThat(token.toString()).doesNotContain("s3cret");
  }
}
