package io.mvproxy.node.ingress;

import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code /healthz}, {@code /livez}, {@code /readyz} like kube-apiserver ({@code ?verbose} lists every check as
 * {@code [+]name ok} / {@code [-]name failed}; 200 "ok" or 500 with the failures), and {@code /version}.
 */
public final class HealthHandler implements Handler<RoutingContext> {
  private final Map<String, BooleanSupplier> liveChecks = new LinkedHashMap<>();
  private final Map<String, BooleanSupplier> readyChecks = new LinkedHashMap<>();
  private final JsonObject version;

  /**
   * @param version       the mvproxy version (e.g. {@code 0.1.0})
   * @param readyChecks   named readiness checks, in display order (liveness uses only {@code ping})
   */
  public HealthHandler(String version, Map<String, BooleanSupplier> readyChecks) {
    this(version, Map.of(), readyChecks);
  }

  /**
   * @param version     the mvproxy version
   * @param liveChecks  named liveness checks after {@code ping} (e.g. {@code etcd}, as kube-apiserver's /livez/etcd)
   * @param readyChecks named readiness checks, in display order
   */
  public HealthHandler(String version, Map<String, BooleanSupplier> liveChecks,
                       Map<String, BooleanSupplier> readyChecks) {
    this.liveChecks.put("ping", () -> true);
    this.liveChecks.putAll(liveChecks);
    this.readyChecks.put("ping", () -> true);
    this.readyChecks.putAll(readyChecks);
    // apimachinery version.Info (1.33+): the emulation version is the binary's (no --emulated-version), the
    // minimum compatibility version one minor below it (component-base compatibility/version.go)
    this.version = new JsonObject().put("major", "1").put("minor", "36").put("emulationMajor", "1")
        .put("emulationMinor", "36").put("minCompatibilityMajor", "1").put("minCompatibilityMinor", "35")
        .put("gitVersion", "v1.36.0-mvproxy." + version).put("gitCommit", "").put("gitTreeState", "clean")
        .put("buildDate", "").put("goVersion", "java" + Runtime.version().feature()).put("compiler", "javac")
        .put("platform", System.getProperty("os.name").toLowerCase() + "/" + System.getProperty("os.arch"));
  }

  @Override
  public void handle(RoutingContext ctx) {
    String path = ctx.request().path();
    if (path.equals("/version")) {
      // WriteRawJSON (routes/version.go): json.MarshalIndent, two spaces, "key": value, no final newline
      io.vertx.core.buffer.Buffer b = io.mvproxy.api.PrettyJson.encode(version);
      ctx.response().putHeader("Content-Type", "application/json").end(b.getBuffer(0, b.length() - 1));
      return;
    }
    Map<String, BooleanSupplier> checks = path.startsWith("/readyz") ? readyChecks : liveChecks;
    String prefix = path.startsWith("/readyz") ? "/readyz" : path.startsWith("/livez") ? "/livez" : "/healthz";
    String single = path.length() > prefix.length() + 1 ? path.substring(prefix.length() + 1) : null;
    StringBuilder out = new StringBuilder();
    boolean ok = true;
    for (Map.Entry<String, BooleanSupplier> c : checks.entrySet()) {
      if (single != null && !single.equals(c.getKey())) {
        continue;
      }
      boolean pass = c.getValue().getAsBoolean();
      ok &= pass;
      out.append(pass ? "[+]" : "[-]").append(c.getKey()).append(pass ? " ok" : " failed: reason withheld")
          .append('\n');
    }
    if (single != null && out.length() == 0) {
      ctx.response().setStatusCode(404).end("no such health check: " + single + "\n");
      return;
    }
    boolean verbose = ctx.request().params().contains("verbose");
    String name = prefix.substring(1);
    String body = verbose || !ok ? out + name + " check " + (ok ? "passed" : "failed") + "\n" : "ok";
    ctx.response().setStatusCode(ok ? 200 : 500).putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("X-Content-Type-Options", "nosniff").end(body);
  }

  /**
   * A readiness check that stays passed once it has passed, as kube-apiserver's {@code poststarthook/*} checks do.
   *
   * @param check the start-up condition
   * @return false until {@code check} first answers true, then true for good
   */
  public static BooleanSupplier once(BooleanSupplier check) {
    java.util.concurrent.atomic.AtomicBoolean passed = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (!passed.get() && check.getAsBoolean()) {
        passed.set(true);
      }
      return passed.get();
    };
  }
}
