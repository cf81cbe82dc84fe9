package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.Settings;
import dev.vigil.receiver.ReceivedNotification;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.receiver.ReferenceReceiver;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class RoutingIT {

  @Test
  void prefixRouteGoesToItsOwnReceiverWithItsOwnSecretAndBearerToken(
      TestDatabase db, TestDatabase vipDb, TestKafka kafka) {
    String vipSecret = WebhookSecret.generate();
    String vipToken = "vip-token-value";
    try (ReferenceReceiver vip =
        ReferenceReceiver.start(
            new ReceiverConfig(
                new Settings(
                    Map.of(
                        "VIGIL_DB_URL",
                        vipDb.jdbcUrl(),
                        "VIGIL_DB_USER",
                        vipDb.user(),
                        "VIGIL_HTTP_PORT",
                        "0",
                        "VIGIL_WEBHOOK_SECRETS",
                        vipSecret,
                        "VIGIL_RECEIVER_TOKEN",
                        vipToken))))) {
      List<ReceivedNotification> vipReceived = new CopyOnWriteArrayList<>();
      vip.onNotification(vipReceived::add);
      Map<String, String> routes =
          Map.of(
              "VIGIL_WEBHOOK_ROUTES",
              "vip-*=http://localhost:"
                  + vip.port()
                  + "/vip secrets=env:VIP_SECRETS token=env:VIP_TOKEN",
              "VIP_SECRETS",
              vipSecret,
              "VIP_TOKEN",
              vipToken);
      try (TestStack stack = TestStack.start(db, kafka, routes)) {
        AlertEvent vipDown = TestStack.failed("vip-checkout");
        AlertEvent plainDown = TestStack.failed("checkout");
        stack.produce(vipDown);
        stack.produce(plainDown);

        stack.awaitStatus(vipDown.eventId(), "DELIVERED");
        stack.awaitStatus(plainDown.eventId(), "DELIVERED");
        assertThat(vipReceived)
            .extracting(n -> n.event().eventId())
            .containsExactly(vipDown.eventId());
        assertThat(stack.notifications)
            .extracting(n -> n.event().eventId())
            .containsExactly(plainDown.eventId());
      }
    }
  }
}
