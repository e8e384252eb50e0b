package io.mvproxy.registry.impl.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.admission.Admission;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.WatchEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The dispatcher against a real HTTPS webhook server on 127.0.0.1 (a self-signed certificate, itself the
 * caBundle): mutating webhooks in configuration-name order with IfNeeded reinvocation, validating webhooks'
 * first denial in order, an unknown authority failing closed or open, matchConditions skipping a webhook.
 */
@Tag("unit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookDispatcherTest {
  Vertx vertx;
  HttpServer server;
  String caBundle;
  final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    Path store = selfSigned("webhook");
    caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(store.resolveSibling("webhook.pem")));
    server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PfxOptions()
            .setPath(store.toString()).setPassword("changeit")))
        .requestHandler(req -> req.body().onSuccess(b -> {
          String label = req.path().substring(1);
          if (label.startsWith("bomb")) {
            // a broken webhook: an endless answer, announced by its length or chunked
            io.vertx.core.buffer.Buffer chunk = io.vertx.core.buffer.Buffer.buffer(new byte[1 << 20]);
            if (label.equals("bomb-length")) {
              req.response().putHeader("Content-Length", Long.toString(4L << 30));
            } else {
              req.response().setChunked(true);
            }
            long[] sent = {0};
            vertx.setPeriodic(5, t -> {
              if (req.response().closed() || sent[0] > (64L << 20)) {
                vertx.cancelTimer(t);
                req.response().reset();
                return;
              }
              if (!req.response().writeQueueFull()) {
                sent[0] += chunk.length();
                req.response().write(chunk);
              }
            });
            return;
          }
          calls.computeIfAbsent(label, k -> new AtomicInteger()).incrementAndGet();
          JsonObject r = b.toJsonObject().getJsonObject("request");
          JsonObject resp = new JsonObject().put("uid", r.getString("uid")).put("allowed", true);
          if (label.equals("big-headers")) {
            // a webhook behind a proxy that adds 20 KB of headers: Go's transport reads up to 10 MiB of them
            for (int i = 0; i < 20; i++) {
              req.response().putHeader("X-Pad-" + i, "p".repeat(1000));
            }
          }
          if (label.contains("annotate")) {
            resp.put("auditAnnotations", new JsonObject().put("reason", label).put("ignored-number", 5));
          }
          if (label.startsWith("deny")) {
            resp.put("allowed", false).put("status", new JsonObject().put("message", label).put("code", 409));
          } else if (label.startsWith("add-")) {
            JsonObject labels = r.getJsonObject("object").getJsonObject("metadata").getJsonObject("labels",
                new JsonObject());
            String key = label.substring(4);
            if (!labels.containsKey(key)) {
              JsonArray patch = new JsonArray().add(new JsonObject().put("op", "add")
                  .put("path", "/metadata/labels/" + key).put("value", "1"));
              resp.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(
                  patch.encode().getBytes(StandardCharsets.UTF_8)));
            }
          }
          req.response().end(new JsonObject().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview")
              .put("response", resp).encode());
        }))
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /**
   * A PKCS#12 key store holding a self-signed certificate for IP 127.0.0.1 (JDK keytool), and its PEM beside it.
   *
   * @param name the file names' stem
   * @return the key store's path
   */
  static Path selfSigned(String name) throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-webhook-tls");
    Path p12 = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    run(List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
        "CN=" + name, "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
        p12.toString(), "-storepass", "changeit", "-keypass", "changeit"));
    run(List.of(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", p12.toString(), "-storepass",
        "changeit", "-file", dir.resolve(name + ".pem").toString()));
    return p12;
  }

  private static void run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(cmd + ": " + out);
    }
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  JsonObject hook(String name, String path, String ca) {
    return new JsonObject().put("name", name)
        .put("clientConfig", new JsonObject().put("url", "https://127.0.0.1:" + server.actualPort() + "/" + path)
            .put("caBundle", ca))
        .put("rules", new JsonArray().add(new JsonObject().put("operations", new JsonArray().add("*"))
            .put("apiGroups", new JsonArray().add("*")).put("apiVersions", new JsonArray().add("*"))
            .put("resources", new JsonArray().add("*"))))
        .put("sideEffects", "None").put("admissionReviewVersions", new JsonArray().add("v1"));
  }

  static WatchEvent added(String name, JsonObject... hooks) {
    JsonArray a = new JsonArray();
    for (JsonObject h : hooks) {
      a.add(h);
    }
    JsonObject o = new JsonObject().put("metadata", new JsonObject().put("name", name)).put("webhooks", a);
    return new WatchEvent(WatchEvent.Type.ADDED, new StoredObject(name, o, 1), null);
  }

  WebhookDispatcher dispatcher() {
    return new WebhookDispatcher(vertx, (ns, n, p) -> Optional.empty(), n -> Future.failedFuture("none"));
  }

  static Admission.Attributes create() {
    JsonObject obj = new JsonObject().put("apiVersion", "demo.io/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w1").put("labels", new JsonObject().put("x", "y")));
    return new Admission.Attributes("demo.io", "v1", "widgets", "", "Widget", "default", "w1", "CREATE", obj, null,
        new JsonObject(), false, new UserInfo("alice", "", List.of(), Map.of()), true, List.of());
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  static StatusException failure(Future<?> f) throws Exception {
    try {
      await(f);
    } catch (java.util.concurrent.ExecutionException e) {
      return (StatusException) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void mutatingOrderAndReinvocation() throws Exception {
    WebhookDispatcher d = dispatcher();
    // configuration b sorts after a: a (IfNeeded) runs, then b changes the object, so a runs once more
    d.configEvent(WebhookConfigurations.MUTATING, added("b-config", hook("b.example.com", "add-b", caBundle)));
    d.configEvent(WebhookConfigurations.MUTATING, added("a-config", hook("a.example.com", "add-a", caBundle)
        .put("reinvocationPolicy", "IfNeeded")));
    assertEquals(List.of("a.example.com", "b.example.com"), d.mutatingWebhooks().stream().map(Webhook::name)
        .toList());
    JsonObject out = await(d.mutate(create()));
    assertEquals(new JsonObject().put("x", "y").put("a", "1").put("b", "1"),
        out.getJsonObject("metadata").getJsonObject("labels"));
    assertEquals(2, calls.get("add-a").get());
    assertEquals(1, calls.get("add-b").get());
    // nothing changed: the same instance comes back
    Admission.Attributes done = create().withObject(out);
    assertTrue(await(d.mutate(done)) == done.object());
  }

  @Test
  void validatingFirstDenialInOrderAndFailurePolicies() throws Exception {
    WebhookDispatcher d = dispatcher();
    d.configEvent(WebhookConfigurations.VALIDATING, added("v", hook("ok.example.com", "allow", caBundle),
        hook("d1.example.com", "deny-1", caBundle), hook("d2.example.com", "deny-2", caBundle)));
    StatusException e = failure(d.validate(create()));
    assertEquals(409, e.code());
    assertEquals("admission webhook \"d1.example.com\" denied the request: deny-1", e.getMessage());
    // a server whose certificate the caBundle does not vouch for
    String otherCa = Base64.getEncoder().encodeToString(Files.readAllBytes(selfSigned("other")
        .resolveSibling("other.pem")));
    WebhookDispatcher untrusted = dispatcher();
    untrusted.configEvent(WebhookConfigurations.VALIDATING, added("u", hook("u.example.com", "allow", otherCa)));
    StatusException u = failure(untrusted.validate(create()));
    assertEquals(500, u.code());
    assertEquals("Internal error occurred: failed calling webhook \"u.example.com\": failed to call webhook: Post "
        + "\"https://127.0.0.1:" + server.actualPort() + "/allow?timeout=10s\": tls: failed to verify certificate: "
        + "x509: certificate signed by unknown authority", u.getMessage());
    WebhookDispatcher open = dispatcher();
    open.configEvent(WebhookConfigurations.VALIDATING, added("u", hook("u.example.com", "allow", otherCa)
        .put("failurePolicy", "Ignore")));
    await(open.validate(create()));
  }

  /**
   * response.auditAnnotations go to the request's audit event as "<webhook name>/<key>", from mutating and validating
   * webhooks, a denying one too (dispatchers add them before looking at the answer); values that are not strings are
   * not decoded.
   */
  @Test
  void auditAnnotationsAreNamedAfterTheWebhook() throws Exception {
    WebhookDispatcher d = dispatcher();
    d.configEvent(WebhookConfigurations.MUTATING, added("m", hook("m.example.com", "annotate-m", caBundle)));
    d.configEvent(WebhookConfigurations.VALIDATING, added("v", hook("v.example.com", "annotate-v", caBundle),
        hook("d.example.com", "deny-annotate", caBundle)));
    Map<String, String> annotations = new java.util.concurrent.ConcurrentHashMap<>();
    Admission.Attributes c = create();
    Admission.Attributes a = new Admission.Attributes(c.group(), c.version(), c.resource(), c.subresource(), c.kind(),
        c.namespace(), c.name(), c.operation(), c.object(), c.oldObject(), c.options(), c.dryRun(), c.user(),
        c.namespaced(), c.equivalentVersions(), null, annotations::put);
    await(d.mutate(a));
    assertEquals(Map.of("m.example.com/reason", "annotate-m"), annotations);
    assertEquals(409, failure(d.validate(a)).code());
    assertEquals(Map.of("m.example.com/reason", "annotate-m", "v.example.com/reason", "annotate-v",
        "d.example.com/reason", "deny-annotate"), annotations);
  }

  /** An answer with 20 KB of headers is read (Vert.x's 8 KiB default failed the call: ClientLimits). */
  @Test
  void largeResponseHeadsAreRead() throws Exception {
    WebhookDispatcher d = dispatcher();
    d.configEvent(WebhookConfigurations.VALIDATING, added("h", hook("h.example.com", "big-headers", caBundle)));
    await(d.validate(create()));
    assertEquals(1, calls.get("big-headers").get());
  }

  /** A webhook answering without end fails the call (failurePolicy Fail) or is skipped (Ignore): memory stays bounded. */
  @Test
  void anEndlessAnswerIsCutAtTheBound() throws Exception {
    for (String path : List.of("bomb-length", "bomb-chunked")) {
      WebhookDispatcher d = dispatcher();
      d.configEvent(WebhookConfigurations.VALIDATING, added("b", hook("bomb.example.com", path, caBundle)));
      StatusException e = failure(d.validate(create()));
      assertEquals(500, e.code());
      assertEquals("Internal error occurred: failed calling webhook \"bomb.example.com\": received invalid webhook "
          + "response: response body larger than 10485760 bytes", e.getMessage());
      WebhookDispatcher open = dispatcher();
      open.configEvent(WebhookConfigurations.VALIDATING, added("b", hook("bomb.example.com", path, caBundle)
          .put("failurePolicy", "Ignore")));
      await(open.validate(create()));
    }
  }

  @Test
  void matchConditionsSkipAndExemptResources() throws Exception {
    WebhookDispatcher d = dispatcher();
    d.configEvent(WebhookConfigurations.VALIDATING, added("m", hook("m.example.com", "deny-m", caBundle)
        .put("matchConditions", new JsonArray().add(new JsonObject().put("name", "only-bob")
            .put("expression", "request.userInfo.username == 'bob'")))));
    await(d.validate(create()));
    assertEquals(null, calls.get("deny-m"));
    Admission.Attributes cfg = new Admission.Attributes("admissionregistration.k8s.io", "v1",
        "validatingwebhookconfigurations", "", "ValidatingWebhookConfiguration", "", "m", "DELETE", null,
        new JsonObject(), new JsonObject(), false, new UserInfo("bob", "", List.of(), Map.of()), false, List.of());
    await(d.validate(cfg));
    assertEquals(null, calls.get("deny-m"));
    d.configEvent(WebhookConfigurations.VALIDATING, new WatchEvent(WatchEvent.Type.DELETED,
        new StoredObject("m", new JsonObject().put("metadata", new JsonObject().put("name", "m")), 2), null));
    assertEquals(false, d.active());
  }
}
