import io.mvproxy.registry.impl.CrdManifests;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.schema.OpenApiValidator;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

/**
 * Validation cost of custom objects (bench/schema-validation.sh runs it): objects per second for decoding steps
 * (prune + default), kube-openapi schema validation alone, and the whole validation (schema, list types, embedded
 * resources, CEL), for the largest CRD of the test data (prometheus-operator Alertmanager, 606 KiB) and the
 * CEL-heaviest one (gateway-api HTTPRoute), measured side by side in one run; prints medians of 5 rounds.
 */
public final class SchemaValidationBench {
  private SchemaValidationBench() {
  }

  public static void main(String[] args) throws Exception {
    Path shared = Path.of(args.length > 0 ? args[0] : "../shared/testdata");
    Path data = Path.of("kernel/registry/src/test/resources/schema-crds");
    long t0 = System.nanoTime();
    VersionSchema am = CrdParser.parse(CrdManifests.read(shared.resolve("crds/prometheus-operator-alertmanagers.yaml"))
        .get(0)).served("v1").orElseThrow().validation();
    long t1 = System.nanoTime();
    VersionSchema hr = CrdParser.parse(CrdManifests.read(data.resolve("gateway-api-httproutes.yaml")).get(0))
        .served("v1").orElseThrow().validation();
    long t2 = System.nanoTime();
    System.out.printf("CRD load (parse + structural check + CEL compile): alertmanagers %.0f ms, httproutes %.0f ms%n",
        (t1 - t0) / 1e6, (t2 - t1) / 1e6);
    JsonObject alertmanager = CrdManifests.read(shared.resolve("objects/prometheus-operator-alertmanager-example.yaml"))
        .get(0);
    alertmanager.getJsonObject("spec").put("logLevel", "info").put("retention", "120h")
        .put("resources", new JsonObject().put("limits", new JsonObject().put("cpu", "1").put("memory", "1Gi")))
        .put("containers", new io.vertx.core.json.JsonArray().add(new JsonObject().put("name", "sidecar")
            .put("image", "busybox").put("ports", new io.vertx.core.json.JsonArray()
                .add(new JsonObject().put("containerPort", 8080).put("name", "http")))));
    JsonObject route = CrdManifests.read(data.resolve("gateway-api-example-basic-http.yaml")).stream()
        .filter(o -> "HTTPRoute".equals(o.getString("kind"))).findFirst().orElseThrow();
    run("alertmanager", am, alertmanager);
    run("httproute", hr, route);
  }

  private static void run(String name, VersionSchema vs, JsonObject obj) {
    JsonObject decoded = obj.copy();
    vs.prune(decoded);
    vs.applyDefaults(decoded);
    if (!vs.validate(decoded, null, false).isEmpty()) {
      throw new IllegalStateException(name + " example is invalid: " + vs.validate(decoded, null, false));
    }
    measure(name + " prune+default", () -> {
      JsonObject c = obj.copy();
      vs.prune(c);
      vs.applyDefaults(c);
      return c;
    });
    measure(name + " openapi only", () -> OpenApiValidator.validate(decoded, vs.root(), OpenApiValidator.NO_OLD,
        null));
    measure(name + " full (with CEL)", () -> vs.validate(decoded, null, false));
    measure(name + " full update (ratcheting, oldSelf)", () -> vs.validate(decoded, decoded, false));
  }

  private static void measure(String label, Supplier<Object> op) {
    long warmEnd = System.nanoTime() + 2_000_000_000L;
    while (System.nanoTime() < warmEnd) {
      op.get();
    }
    List<Double> rates = new ArrayList<>();
    for (int round = 0; round < 5; round++) {
      long n = 0;
      long start = System.nanoTime();
      long end = start + 1_000_000_000L;
      long now;
      do {
        op.get();
        n++;
        now = System.nanoTime();
      } while (now < end);
      rates.add(n / ((now - start) / 1e9));
    }
    Collections.sort(rates);
    System.out.printf("%-45s median %10.0f objects/s  (min %.0f, max %.0f)%n", label, rates.get(2), rates.get(0),
        rates.get(4));
  }
}
