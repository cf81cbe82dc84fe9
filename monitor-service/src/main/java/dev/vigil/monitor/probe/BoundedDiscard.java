package dev.vigil.monitor.probe;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Discards a response body, reading at most {@code limit} bytes: a small body is drained so the
 * connection can be reused, a large or endless one is cut off (the check needs only the status).
 */
final class BoundedDiscard implements HttpResponse.BodySubscriber<Void> {
  private final long limit;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private Flow.Subscription subscription;
  private long seen;

  BoundedDiscard(long limit) {
    this.limit = limit;
  }

  static HttpResponse.BodyHandler<Void> handler(long limit) {
    return info -> new BoundedDiscard(limit);
  }

  @Override
  public CompletionStage<Void> getBody() {
    return done;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    this.subscription = subscription;
    subscription.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer buffer : buffers) {
      seen += buffer.remaining();
    }
    if (seen > limit) {
      subscription.cancel();
      done.complete(null);
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    // The status is already known; a body that fails half-way does not change the verdict.
    done.complete(null);
  }

  @Override
  public void onComplete() {
    done.complete(null);
  }
}
