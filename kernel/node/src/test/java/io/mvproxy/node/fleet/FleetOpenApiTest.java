package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.openapi.OpenApiDocuments;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The node's OpenAPI documents follow its local sources, a change arriving during a build included. */
@Tag("unit")
class FleetOpenApiTest {
  /**
   * An APIService source downloads its backend's documents after its discovery check: the node may be building its
   * documents from the source's earlier answer (none) when that change is told. The build that ran must not record
   * its key as current over the newer change (a node kept its aggregated API out of /openapi/v3 for good).
   */
  @Test
  void aSourceChangeToldDuringABuildIsBuiltAfterIt() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      GroupVersion gv = new GroupVersion("late.example.com", "v1");
      CountDownLatch inBuild = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicBoolean first = new AtomicBoolean(true);
      AtomicReference<JsonObject> doc = new AtomicReference<>();
      ApiSource source = new ApiSource() {
        @Override
        public String name() {
          return "late";
        }

        @Override
        public List<ServedGroupVersion> groupVersions() {
          return List.of(new ServedGroupVersion(gv, 1000, 15, List.of(), io.mvproxy.api.discovery.Freshness.Current));
        }

        @Override
        public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
          ctx.fail(500);
        }

        @Override
        public boolean servesWholeGroupVersion() {
          return true;  // as an aggregated API: no declared fragment while the backend's is unknown
        }

        @Override
        public JsonObject openApiV3(GroupVersion g) {
          JsonObject d = doc.get();  // what the source has when the build asks
          if (first.getAndSet(false)) {
            inBuild.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);  // the first build reads the source before its change
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return d == null ? null : d.copy();
        }
      };
      FleetViewRef ref = new FleetViewRef(new FleetView(RoutingSnapshot.EMPTY, DiscoveryDocuments.empty("n1",
          "127.0.0.1:6443"), OpenApiDocuments.empty(), Map.of()));
      FleetOpenApi api = new FleetOpenApi(null, ref, () -> List.of(source), List::of, Logger.getLogger("test"));
      io.vertx.core.Context ctx = vertx.getOrCreateContext();
      ctx.runOnContext(v -> {
        api.bind(vertx);
        api.refresh(false);
      });
      assertTrue(inBuild.await(10, TimeUnit.SECONDS), "the first build started");
      doc.set(new JsonObject().put("openapi", "3.0.0").put("paths", new JsonObject().put("/apis/late.example.com/v1",
          new JsonObject())).put("components", new JsonObject().put("schemas", new JsonObject())));
      CountDownLatch told = new CountDownLatch(1);
      ctx.runOnContext(v -> {
        api.invalidate();  // the source's change, as LOCAL_APIS_CHANGED does it
        api.refresh(false);
        told.countDown();
      });
      assertTrue(told.await(10, TimeUnit.SECONDS));
      assertNull(ref.get().openapi().v3(gv), "nothing built yet");
      release.countDown();
      Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> ref.get().openapi().v3(gv) != null);
      assertNotNull(ref.get().openapi().v3(gv));
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
