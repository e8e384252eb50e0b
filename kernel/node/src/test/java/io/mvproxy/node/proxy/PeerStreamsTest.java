package io.mvproxy.node.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link PeerStreams}: streams of peers that left the view are ended on their own context, others kept. */
@Tag("unit")
class PeerStreamsTest {
  final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void departedPeersStreamsEndOnTheirContext() throws Exception {
    PeerStreams streams = new PeerStreams();
    Context onA = vertx.getOrCreateContext();
    Context onB = vertx.getOrCreateContext();
    CompletableFuture<Context> endedA = new CompletableFuture<>();
    AtomicInteger endedB = new AtomicInteger();
    streams.add("node-c", onA, () -> endedA.complete(Vertx.currentContext()));
    streams.add("node-b", onB, endedB::incrementAndGet);

    assertEquals(0, streams.retainLive(Set.of("node-b", "node-c")), "both live: nothing ended");
    assertEquals(1, streams.retainLive(Set.of("node-b")));
    assertSame(onA, endedA.get(10, TimeUnit.SECONDS), "ended on the context of its response");
    assertEquals(0, streams.count("node-c"));
    assertEquals(1, streams.count("node-b"));
    assertEquals(0, streams.retainLive(Set.of("node-b")), "a departed peer's streams are ended once");
    assertEquals(0, endedB.get());
  }

  @Test
  void endedStreamsAreForgotten() {
    PeerStreams streams = new PeerStreams();
    Context ctx = vertx.getOrCreateContext();
    AtomicInteger ended = new AtomicInteger();
    Runnable first = streams.add("node-c", ctx, ended::incrementAndGet);
    Runnable second = streams.add("node-c", ctx, ended::incrementAndGet);
    assertEquals(2, streams.count("node-c"));
    first.run();
    first.run();
    assertEquals(1, streams.count("node-c"));
    second.run();
    assertEquals(0, streams.count("node-c"));
    assertEquals(0, streams.retainLive(Set.of()), "nothing left to end");
    assertEquals(0, ended.get());
  }
}
