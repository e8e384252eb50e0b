package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.testkit.ApiSourceForwarding;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The wrappers of the built-in kinds ({@link PatchStrategyOpenApi}, {@link ProtobufBodies}, {@link TokenRequests})
 * forward every method of {@link ApiSource}, but hide the CRD capability: a built-in kind is no
 * CustomResourceDefinition.
 */
@Tag("unit")
class BuiltinWrappersForwardingTest {
  private static final List<String> HIDDEN = List.of("customResourceDefinition");

  private static ApiSource tokens(ApiSource accounts) {
    return new TokenRequests(accounts, (ns, name) -> Future.succeededFuture(null), null);
  }

  /** The chain {@link BuiltinApis#create} builds around the serviceaccounts source. */
  private static ApiSource chain(ApiSource accounts) {
    return new PatchStrategyOpenApi(new ProtobufBodies(tokens(accounts)), "serviceaccounts");
  }

  @Test
  void everyWrapperForwardsEveryMethodButTheCrdCapability() {
    List<Function<ApiSource, ApiSource>> wrappers = List.of(d -> new PatchStrategyOpenApi(d, "configmaps"),
        ProtobufBodies::new, BuiltinWrappersForwardingTest::tokens, BuiltinWrappersForwardingTest::chain);
    for (Function<ApiSource, ApiSource> w : wrappers) {
      ApiSource sample = w.apply(new Fixed(Promise.<Void>promise().future()));
      assertEquals(HIDDEN, ApiSourceForwarding.unforwarded(w), sample.getClass().getSimpleName());
      assertEquals(Optional.empty(), sample.customResourceDefinition(), sample.getClass().getSimpleName());
    }
  }

  /** The node publishes its membership only once every source is ready: the chain must not answer ready early. */
  @Test
  void theChainIsReadyWhenTheKindIsAndPassesChangesOn() {
    Promise<Void> ready = Promise.promise();
    Fixed accounts = new Fixed(ready.future());
    ApiSource chain = chain(accounts);
    Future<Void> r = chain.ready();
    assertFalse(r.isComplete(), "ready before the wrapped source");
    ready.complete();
    assertTrue(r.succeeded());
    AtomicInteger changes = new AtomicInteger();
    chain.onChange(changes::incrementAndGet);
    accounts.listeners.forEach(Runnable::run);
    assertEquals(1, changes.get());
  }

  /** A source with a given readiness, a CRD manifest (as the built-in kinds' CrdApiSource) and change listeners. */
  private static final class Fixed implements ApiSource {
    final Future<Void> ready;
    final List<Runnable> listeners = new ArrayList<>();

    Fixed(Future<Void> ready) {
      this.ready = ready;
    }

    @Override
    public String name() {
      return "crd/serviceaccounts";
    }

    @Override
    public List<ServedGroupVersion> groupVersions() {
      return List.of();
    }

    @Override
    public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    }

    @Override
    public Future<Void> ready() {
      return ready;
    }

    @Override
    public void onChange(Runnable listener) {
      listeners.add(listener);
    }

    @Override
    public Optional<JsonObject> customResourceDefinition() {
      return Optional.of(new JsonObject().put("kind", "CustomResourceDefinition"));
    }
  }
}
