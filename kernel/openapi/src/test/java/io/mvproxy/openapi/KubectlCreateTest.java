package io.mvproxy.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs the real kubectl binaries (1.27..1.33, found beside {@code kubectl} on the PATH; skipped when absent) against a
 * minimal API server made of legacy discovery, the {@link OpenApiHandler} and a POST endpoint that accepts anything:
 * {@code kubectl create -f} of objects with an UNKNOWN field must succeed with {@code fieldValidation=Strict}, which
 * kubectl only sends without validating client-side when our OpenAPI documents say the server validates fields.
 * The second scenario hides /openapi/v3 so kubectl must decode the protobuf /openapi/v2 and find the
 * {@code fieldValidation} parameter there.
 */
@Tag("fleet")
class KubectlCreateTest {
  private static Vertx vertx;
  private static HttpServer server;
  private static final List<String> writes = new CopyOnWriteArrayList<>();
  private static final AtomicBoolean hideV3 = new AtomicBoolean();
  /** When set, the node has no local API (empty /openapi/v2) and the fleet's v3 documents come from the fallback. */
  private static final AtomicBoolean peerOnly = new AtomicBoolean();
  private static final java.util.concurrent.atomic.AtomicInteger fallbacks =
      new java.util.concurrent.atomic.AtomicInteger();
  private static final Map<String, JsonObject> objects = new java.util.concurrent.ConcurrentHashMap<>();

  static Stream<String> kubectls() {
    Path dir = kubectlDir();
    if (dir == null) {
      return Stream.of("absent");
    }
    List<String> out = new ArrayList<>();
    for (int minor = 27; minor <= 33; minor++) {
      if (Files.isExecutable(dir.resolve("kubectl.1." + minor))) {
        out.add(dir.resolve("kubectl.1." + minor).toString());
      }
    }
    out.add(dir.resolve("kubectl").toString());
    return out.stream();
  }

  private static Path kubectlDir() {
    for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path k = Path.of(p, "kubectl");
      if (Files.isExecutable(k)) {
        try {
          return k.toRealPath().getParent();
        } catch (java.io.IOException e) {
          return null;
        }
      }
    }
    return null;
  }

  @BeforeAll
  static void startServer() throws Exception {
    List<JsonObject> crds = new ArrayList<>();
    crds.add(TestData.cronTab());
    for (Path f : TestData.crdFiles().toList()) {
      crds.addAll(TestData.load(f));
    }
    OpenApiDocuments docs = OpenApiDocuments.build(crds.stream().map(CrdSource::new).toList(), List.of());
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    router.route("/openapi/v3*").handler(rc -> {
      if (hideV3.get()) {
        rc.response().setStatusCode(404).putHeader("Content-Type", "application/json")
            .end(io.mvproxy.api.StatusException.resourceNotFound().toStatus().toBuffer());
      } else {
        rc.next();
      }
    });
    List<GroupVersion> fleet = new ArrayList<>(docs.localGroupVersions());
    OpenApiDocuments lacking = OpenApiDocuments.build(List.of(), fleet);
    // the fallback stands for the node's peer proxy: it answers with the peer's (here: the full) document
    router.route("/openapi/*").handler(new OpenApiHandler(() -> peerOnly.get() ? lacking : docs, (rc, gv) -> {
      fallbacks.incrementAndGet();
      ServedDocument d = docs.v3(gv);
      rc.response().putHeader("Content-Type", d.contentType()).putHeader("ETag", d.etag()).end(d.body());
    }));
    router.get("/api").handler(rc -> json(rc, new JsonObject().put("kind", "APIVersions")
        .put("versions", new JsonArray().add("v1")).put("serverAddressByClientCIDRs", new JsonArray()
            .add(new JsonObject().put("clientCIDR", "0.0.0.0/0").put("serverAddress", "127.0.0.1")))));
    router.get("/api/v1").handler(rc -> json(rc, new JsonObject().put("kind", "APIResourceList")
        .put("groupVersion", "v1").put("resources", new JsonArray())));
    Map<String, JsonArray> resources = new TreeMap<>();
    JsonArray groups = new JsonArray();
    for (JsonObject crd : crds) {
      JsonObject spec = crd.getJsonObject("spec");
      JsonObject names = spec.getJsonObject("names");
      JsonArray versions = new JsonArray();
      for (String v : new CrdOpenApi(crd).servedVersions()) {
        String gv = spec.getString("group") + "/" + v;
        versions.add(new JsonObject().put("groupVersion", gv).put("version", v));
        resources.computeIfAbsent(gv, k -> new JsonArray()).add(new JsonObject().put("name", names.getString("plural"))
            .put("singularName", names.getString("singular", names.getString("kind").toLowerCase()))
            .put("namespaced", true).put("kind", names.getString("kind")).put("verbs", new JsonArray()
                .add("create").add("delete").add("get").add("list").add("patch").add("update").add("watch")));
      }
      groups.add(new JsonObject().put("name", spec.getString("group")).put("versions", versions)
          .put("preferredVersion", versions.getJsonObject(0)));
    }
    router.get("/apis").handler(rc -> json(rc, new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1")
        .put("groups", groups)));
    resources.forEach((gv, list) -> router.get("/apis/" + gv).handler(rc -> json(rc, new JsonObject()
        .put("kind", "APIResourceList").put("apiVersion", "v1").put("groupVersion", gv).put("resources", list))));
    router.route("/apis/*").handler(BodyHandler.create()).handler(KubectlCreateTest::store);
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A tiny object store: POST creates, GET reads, PUT replaces, PATCH answers the stored object unchanged. */
  private static void store(RoutingContext rc) {
    String method = rc.request().method().name();
    String path = rc.request().path();
    if (!method.equals("GET")) {
      writes.add(method + " " + rc.request().uri() + " " + rc.request().getHeader("Content-Type"));
    }
    JsonObject stored = objects.get(path);
    switch (method) {
      case "POST" -> {
        JsonObject obj = rc.body().asJsonObject();
        obj.getJsonObject("metadata").put("namespace", "default").put("uid", "u-1").put("resourceVersion", "1")
            .put("creationTimestamp", "2026-01-01T00:00:00Z");
        objects.put(path + "/" + obj.getJsonObject("metadata").getString("name"), obj);
        rc.response().setStatusCode(201).putHeader("Content-Type", "application/json").end(obj.toBuffer());
      }
      case "PUT" -> {
        JsonObject obj = rc.body().asJsonObject();
        objects.put(path, obj);
        json(rc, obj);
      }
      case "GET", "PATCH" -> {
        if (stored == null && method.equals("PATCH")
            && "application/apply-patch+yaml".equals(rc.request().getHeader("Content-Type"))) {
          rc.response().setStatusCode(201).putHeader("Content-Type", "application/json")
              .end(new JsonObject().put("apiVersion", "stable.example.com/v1").put("kind", "CronTab")
                  .put("metadata", new JsonObject().put("name", "x").put("namespace", "default")).toBuffer());
        } else if (stored == null) {
          rc.response().setStatusCode(404).putHeader("Content-Type", "application/json")
              .end(io.mvproxy.api.StatusException.resourceNotFound().toStatus().toBuffer());
        } else {
          json(rc, stored);
        }
      }
      default -> rc.response().setStatusCode(405).end();
    }
  }

  private static void json(RoutingContext rc, JsonObject body) {
    rc.response().putHeader("Content-Type", "application/json").end(body.toBuffer());
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void createWithUnknownFieldIsLeftToTheServer(String kubectl, @TempDir Path tmp) throws Exception {
    Assumptions.assumeFalse("absent".equals(kubectl), "no kubectl on the PATH: kubectl end-to-end test skipped");
    hideV3.set(false);
    run(kubectl, tmp);
    String explain = kubectl(kubectl, tmp, List.of("explain", "crontabs.spec"));
    assertTrue(explain.contains("cronSpec") && explain.contains("<string>"), explain);
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void createWithOnlyProtobufV2(String kubectl, @TempDir Path tmp) throws Exception {
    Assumptions.assumeFalse("absent".equals(kubectl), "no kubectl on the PATH: kubectl end-to-end test skipped");
    hideV3.set(true);
    try {
      run(kubectl, tmp);
    } finally {
      hideV3.set(false);
    }
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void createOnNodeLackingTheCrd(String kubectl, @TempDir Path tmp) throws Exception {
    Assumptions.assumeFalse("absent".equals(kubectl), "no kubectl on the PATH: kubectl end-to-end test skipped");
    peerOnly.set(true);
    fallbacks.set(0);
    try {
      run(kubectl, tmp);
      assertTrue(fallbacks.get() > 0, "the v3 document came through the fallback");
    } finally {
      peerOnly.set(false);
    }
  }

  /** Runs kubectl with the kubeconfig written by {@link #run}; asserts exit code 0. @return its output */
  private static String kubectl(String kubectl, Path tmp, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(kubectl, "--kubeconfig", tmp.resolve("kubeconfig").toString(),
        "--cache-dir", tmp.resolve("cache").toString()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), "kubectl timed out");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), kubectl + " " + args + " failed:\n" + out + "\n" + writes);
    return out;
  }

  private void run(String kubectl, Path tmp) throws Exception {
    Path kubeconfig = tmp.resolve("kubeconfig");
    Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster:\n    server: "
        + "http://127.0.0.1:" + server.actualPort() + "\ncontexts:\n- name: t\n  context:\n    cluster: t\n"
        + "    user: u\n    namespace: default\ncurrent-context: t\nusers:\n- name: u\n  user: {}\n");
    Path ct = tmp.resolve("ct.yaml");
    Files.writeString(ct, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: my-cron\nspec:\n"
        + "  cronSpec: '* * * * */5'\n  image: my-cron-image\n  bogusField: 1\n");
    Path ct2 = tmp.resolve("ct2.yaml");
    Files.writeString(ct2, Files.readString(ct).replace("my-cron-image", "my-cron-image:2"));
    List<String> objectFiles = new ArrayList<>();
    Path objectsDir = TestData.crdDir().getParent().resolve("objects");
    try (Stream<Path> s = Files.list(objectsDir)) {
      for (Path o : s.sorted().toList()) {
        Path withUnknown = tmp.resolve(o.getFileName());
        Files.writeString(withUnknown, Files.readString(o) + "  bogusField: 1\n");
        objectFiles.add("-f");
        objectFiles.add(withUnknown.toString());
      }
    }
    Path more = tmp.resolve("more.yaml");
    Files.writeString(more, "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: cr1\n"
        + "spec:\n  request: YWJj\n  issuerRef:\n    name: ca\n  bogusField: 1\n---\n"
        + "apiVersion: internal.kafka.eventing.knative.dev/v1alpha1\nkind: ConsumerGroup\nmetadata:\n  name: cg1\n"
        + "spec:\n  replicas: 1\n");
    objectFiles.add("-f");
    objectFiles.add(more.toString());
    objects.clear();
    List<String> create = new ArrayList<>(List.of("create", "--validate=strict", "-f", ct.toString()));
    create.addAll(objectFiles);
    expectWrites(kubectl, kubeconfig, tmp, create, 5, "POST", "application/json");
    expectWrites(kubectl, kubeconfig, tmp, List.of("replace", "-f", ct2.toString()), 1, "PUT", "application/json");
    objects.clear();
    expectWrites(kubectl, kubeconfig, tmp, List.of("apply", "-f", ct.toString()), 1, "POST", "application/json");
    expectWrites(kubectl, kubeconfig, tmp, List.of("apply", "-f", ct2.toString()), 1, "PATCH",
        "application/merge-patch+json");
    // server-side apply: the apply patch, then kubectl's migration of the last-applied annotation (as in nooa-*)
    expectWrites(kubectl, kubeconfig, tmp, List.of("apply", "--server-side", "-f", ct2.toString()), 2, "PATCH",
        "application/apply-patch+yaml");
  }

  private void expectWrites(String kubectl, Path kubeconfig, Path tmp, List<String> args, int count, String method,
                            String contentType) throws Exception {
    writes.clear();
    String out = kubectl(kubectl, tmp, args);
    assertEquals(count, writes.size(), args + ": " + writes + "\n" + out);
    for (String w : writes) {
      assertTrue(w.startsWith(method + " ") && w.contains("fieldValidation=Strict") && w.endsWith(" " + contentType),
          args + ": " + w);
    }
    assertFalse(out.contains("unknown field"), out);
  }
}
