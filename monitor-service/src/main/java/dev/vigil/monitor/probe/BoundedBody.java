package dev.vigil.monitor.probe;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads a response body up to a hard limit and keeps what it read when asked to: a small body is
 * drained so the connection can be reused, a large or endless one is cut off. The verdict of a
 * status-only check never waits for more than {@code limit} bytes; body conditions see at most
 * {@code limit} bytes.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<BoundedBody.Body> {
  /**
   * What was read.
   *
   * @param bytes the body read (empty when it was not kept)
   * @param truncated the body was longer than the limit; {@code bytes} is its beginning
   * @param failed the body broke off with an error before its end
   */
  record Body(byte[] bytes, boolean truncated, boolean failed) {}

  private final long limit;
  private final boolean keep;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private final CompletableFuture<Body> done = new CompletableFuture<>();
  private Flow.Subscription subscription;
  private long seen;

  private BoundedBody(long limit, boolean keep) {
    this.limit = limit;
    this.keep = keep;
  }

  /** Reads at most {@code limit} bytes, keeping them when {@code keep}. */
  static HttpResponse.BodyHandler<Body> handler(long limit, boolean keep) {
    return info -> new BoundedBody(limit, keep);
  }

  @Override
  public CompletionStage<Body> getBody() {
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
      int size = buffer.remaining();
      if (keep && seen < limit) {
        byte[] bytes = new byte[(int) Math.min(size, limit - seen)];
        buffer.get(bytes);
        kept.writeBytes(bytes);
      }
      seen += size;
    }
    if (seen > limit) {
      subscription.cancel();
      done.complete(new Body(kept.toByteArray(), true, false));
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    // The status is known; only body conditions care that the body broke off.
    done.complete(new Body(kept.toByteArray(), false, true));
  }

  @Override
  public void onComplete() {
    done.complete(new Body(kept.toByteArray(), false, false));
  }
}
