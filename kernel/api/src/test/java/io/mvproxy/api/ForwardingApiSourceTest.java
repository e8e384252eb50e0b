package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link ForwardingApiSource} declares and forwards every method of {@link ApiSource}. */
@Tag("unit")
class ForwardingApiSourceTest {

  /** A method added to ApiSource (a default one especially) must be forwarded by the base class too. */
  @Test
  void declaresEveryMethodOfTheInterface() {
    List<String> missing = new ArrayList<>();
    for (Method m : ApiSource.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      try {
        Method own = ForwardingApiSource.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
        if (Modifier.isAbstract(own.getModifiers())) {
          missing.add(m.getName() + " (abstract)");
        }
      } catch (NoSuchMethodException e) {
        missing.add(m.getName());
      }
    }
    assertEquals(List.of(), missing);
  }

  /** The capabilities an interface default would lose: pending readiness, change notifications, status. */
  @Test
  void readinessChangesAndStatusReachTheWrappedSource() {
    Promise<Void> ready = Promise.promise();
    List<Runnable> listeners = new ArrayList<>();
    JsonObject status = new JsonObject().put("conditions", "x");
    ApiSource wrapped = new ApiSource() {
      @Override
      public String name() {
        return "slow";
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
        return ready.future();
      }

      @Override
      public void onChange(Runnable listener) {
        listeners.add(listener);
      }

      @Override
      public JsonObject status() {
        return status;
      }
    };
    ApiSource wrapper = new ForwardingApiSource(wrapped) {
    };
    Future<Void> r = wrapper.ready();
    assertFalse(r.isComplete(), "ready before the wrapped source");
    ready.complete();
    assertTrue(r.succeeded());
    AtomicInteger changes = new AtomicInteger();
    wrapper.onChange(changes::incrementAndGet);
    listeners.forEach(Runnable::run);
    assertEquals(1, changes.get());
    assertSame(status, wrapper.status());
    assertEquals("slow", wrapper.name());
  }
}
