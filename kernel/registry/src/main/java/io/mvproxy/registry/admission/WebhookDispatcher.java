package io.mvproxy.registry.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.admission.Admission;
import io.mvproxy.api.storage.WatchEvent;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The node's webhook admission ({@link Admission}), as kube-apiserver's {@code MutatingAdmissionWebhook} and
 * {@code ValidatingAdmissionWebhook} ({@code admission/plugin/webhook/mutating/dispatcher.go},
 * {@code validating/dispatcher.go}). The configurations come from storage through {@link #configEvent} (a watch
 * of each configuration store, so a request never reads storage for them and a change reaches every node within
 * a second); namespaces' labels likewise through {@link #namespaceEvent}, with a storage read when a namespace is
 * not known yet.
 *
 * <p>Mutating webhooks run one after the other, configurations in name order and webhooks in their order; a
 * {@code JSONPatch} answer is applied to the object the next one sees; with {@code reinvocationPolicy: IfNeeded}
 * a webhook is called once more when a later webhook changed the object. Validating webhooks run in parallel; the
 * first failure in their order is answered. Webhooks are called over HTTPS ({@code clientConfig.url}, or
 * {@code clientConfig.service} resolved through {@code --service-resolution}), the server verified against
 * {@code caBundle} (the JDK's roots without one, host name checked), POST {@code ?timeout=<n>s} with an
 * AdmissionReview v1, within {@code timeoutSeconds}. The configuration resources themselves are never sent to
 * webhooks (upstream's {@code IsExemptAdmissionConfigurationResource}).
 */
public final class WebhookDispatcher implements Admission {
  /**
   * The most bytes of a webhook's answer read (10 MiB: an AdmissionReview holds at most a JSON patch of an object of
   * at most 3 MiB, base64-encoded, and warnings); beyond it the call fails (see {@link #readBounded}).
   */
  public static final long MAX_RESPONSE_BYTES = 10L << 20;

  private static final Logger LOG = Logger.getLogger(WebhookDispatcher.class.getName());
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Set<String> EXEMPT = Set.of("validatingwebhookconfigurations", "mutatingwebhookconfigurations",
      "validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies",
      "mutatingadmissionpolicybindings");

  /** Resolves {@code clientConfig.service} to a base URL ({@code namespace, name, port}). */
  @FunctionalInterface
  public interface ServiceResolver {
    /**
     * @param namespace the service's namespace
     * @param name      its name
     * @param port      its port
     * @return the base URL ({@code https://host:port}), or empty when unknown
     */
    Optional<String> resolve(String namespace, String name, int port);
  }

  private final Vertx vertx;
  private final ServiceResolver services;
  private final Function<String, Future<JsonObject>> namespaceReader;
  private final Map<String, JsonObject> validatingConfigs = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> mutatingConfigs = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> namespaces = new ConcurrentHashMap<>();
  private final ValidatingPolicies policies = new ValidatingPolicies();
  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();
  private volatile List<Webhook> validating = List.of();
  private volatile List<Webhook> mutating = List.of();

  /**
   * @param vertx           the node's Vert.x (HTTP clients, timers)
   * @param services        resolves {@code clientConfig.service}
   * @param namespaceReader reads a namespace from storage (a future failing when absent)
   */
  public WebhookDispatcher(Vertx vertx, ServiceResolver services, Function<String, Future<JsonObject>> namespaceReader) {
    this.vertx = vertx;
    this.services = services;
    this.namespaceReader = namespaceReader;
  }

  /**
   * Applies a watch event of a configuration store.
   *
   * @param kind {@link WebhookConfigurations#VALIDATING} or {@link WebhookConfigurations#MUTATING}
   * @param e    the event
   */
  public void configEvent(String kind, WatchEvent e) {
    boolean mut = WebhookConfigurations.MUTATING.equals(kind);
    Map<String, JsonObject> map = mut ? mutatingConfigs : validatingConfigs;
    JsonObject o = e.object().object();
    String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (e.type() == WatchEvent.Type.DELETED) {
      map.remove(name);
    } else {
      map.put(name, o.copy());
    }
    rebuild(mut);
  }

  /**
   * Applies a watch event of the namespaces' store (their labels, for {@code namespaceSelector}).
   *
   * @param e the event
   */
  public void namespaceEvent(WatchEvent e) {
    JsonObject o = e.object().object();
    String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (e.type() == WatchEvent.Type.DELETED) {
      namespaces.remove(name);
    } else {
      namespaces.put(name, o.copy());
    }
  }

  private void rebuild(boolean mut) {
    Map<String, JsonObject> map = mut ? mutatingConfigs : validatingConfigs;
    List<Webhook> hooks = new ArrayList<>();
    for (Map.Entry<String, JsonObject> c : new TreeMap<>(map).entrySet()) {
      try {
        hooks.addAll(Webhook.of(c.getValue(), mut));
      } catch (RuntimeException ex) {
        LOG.warning("admission: skipping " + (mut ? "mutating" : "validating") + " webhook configuration "
            + c.getKey() + ": " + ex.getMessage());
      }
    }
    if (mut) {
      mutating = List.copyOf(hooks);
    } else {
      validating = List.copyOf(hooks);
    }
  }

  /** @return the ValidatingAdmissionPolicy evaluator (fed by the node with the policies' and bindings' events) */
  public ValidatingPolicies policies() {
    return policies;
  }

  /** @return the mutating webhooks in call order (configurations by name, then their order) */
  public List<Webhook> mutatingWebhooks() {
    return mutating;
  }

  /** @return the validating webhooks */
  public List<Webhook> validatingWebhooks() {
    return validating;
  }

  @Override
  public boolean active() {
    return !mutating.isEmpty() || !validating.isEmpty() || policies.active();
  }

  private static boolean exempt(Attributes a) {
    return "admissionregistration.k8s.io".equals(a.group()) && EXEMPT.contains(a.resource());
  }

  @Override
  public Future<JsonObject> mutate(Attributes a) {
    List<Webhook> hooks = mutating;
    if (hooks.isEmpty() || exempt(a)) {
      return Future.succeededFuture(a.object());
    }
    return labelsFor(a, hooks).compose(ns -> {
      MutationState st = new MutationState(a.object());
      Future<MutationState> f = Future.succeededFuture(st);
      for (int i = 0; i < hooks.size(); i++) {
        int index = i;
        f = f.compose(s -> callMutating(hooks.get(index), index, a, ns, s, false));
      }
      return f.compose(s -> {
        if (s.reinvoke.isEmpty() || s.lastChange <= s.reinvoke.get(0)) {
          return Future.succeededFuture(s);
        }
        List<Integer> again = List.copyOf(s.reinvoke);
        Future<MutationState> g = Future.succeededFuture(s);
        for (int index : again) {
          g = g.compose(x -> callMutating(hooks.get(index), index, a, ns, x, true));
        }
        return g;
      }).map(s -> s.changed ? s.object : a.object());
    });
  }

  /** The object as the mutating webhooks have changed it so far. */
  private static final class MutationState {
    JsonObject object;
    boolean changed;
    int lastChange = -1;
    final List<Integer> reinvoke = new ArrayList<>();

    MutationState(JsonObject object) {
      this.object = object;
    }
  }

  private Future<MutationState> callMutating(Webhook hook, int index, Attributes a, Map<String, String> ns,
                                             MutationState s, boolean reinvocation) {
    Attributes current = a.object() == null ? a : a.withObject(s.object);
    String version = matches(hook, current, ns);
    if (version == null) {
      return Future.succeededFuture(s);
    }
    String uid = UUID.randomUUID().toString();
    JsonObject review = AdmissionReviews.request(uid, current, version);
    Future<Boolean> conditions = conditions(hook, current, review);
    return conditions.compose(run -> {
      if (!run) {
        return Future.succeededFuture(s);
      }
      if (!reinvocation && "IfNeeded".equals(hook.reinvocationPolicy())) {
        s.reinvoke.add(index);
      }
      return call(hook, review, uid).compose(resp -> {
        if (resp == null) {
          return Future.succeededFuture(s);
        }
        resp.warnings().forEach(a.warnings());
        if (!resp.allowed()) {
          return Future.failedFuture(AdmissionReviews.denied(hook.name(), resp.result()));
        }
        if (resp.patch() != null && s.object != null) {
          JsonObject patched;
          try {
            JsonNode source = MAPPER.readTree(review.getJsonObject("request").getJsonObject("object").encode());
            JsonNode out = JsonPatch.apply(MAPPER.readTree(resp.patch().encode()), source);
            patched = new JsonObject(MAPPER.writeValueAsString(out));
          } catch (Exception e) {
            return Future.failedFuture(new StatusException(io.mvproxy.api.StatusReason.InternalError,
                "Internal error occurred: " + e.getMessage(), null));
          }
          patched.put("apiVersion", s.object.getValue("apiVersion"));
          if (!patched.equals(s.object)) {
            s.object = patched;
            s.changed = true;
            s.lastChange = index;
          }
        }
        return Future.succeededFuture(s);
      });
    });
  }

  @Override
  public Future<Void> validate(Attributes a) {
    List<Webhook> hooks = validating;
    if (exempt(a)) {
      return Future.succeededFuture();
    }
    Future<Void> policy = !policies.active() ? Future.succeededFuture() : namespaceObject(a).compose(ns -> {
      StatusException denied = policies.evaluate(a, ns);
      return denied == null ? Future.succeededFuture() : Future.failedFuture(denied);
    });
    if (hooks.isEmpty()) {
      return policy;
    }
    return policy.compose(p -> labelsFor(a, hooks)).compose(ns -> {
      List<Future<Void>> calls = new ArrayList<>();
      for (Webhook hook : hooks) {
        String version = matches(hook, a, ns);
        if (version == null) {
          continue;
        }
        String uid = UUID.randomUUID().toString();
        JsonObject review = AdmissionReviews.request(uid, a, version);
        calls.add(conditions(hook, a, review).compose(run -> !run ? Future.<Void>succeededFuture()
            : call(hook, review, uid).compose(resp -> {
              if (resp == null) {
                return Future.<Void>succeededFuture();
              }
              resp.warnings().forEach(a.warnings());
              return resp.allowed() ? Future.<Void>succeededFuture()
                  : Future.<Void>failedFuture(AdmissionReviews.denied(hook.name(), resp.result()));
            })));
      }
      return Future.join(calls).transform(done -> {
        for (Future<Void> c : calls) {
          if (c.failed()) {
            return Future.failedFuture(c.cause());
          }
        }
        return Future.succeededFuture();
      });
    });
  }

  /** @return the version to call {@code hook} with, or null when its rules or selectors exclude the request */
  private static String matches(Webhook hook, Attributes a, Map<String, String> ns) {
    String version = WebhookMatching.matchingVersion(hook, a);
    if (version == null || !WebhookMatching.namespaceMatches(hook, a, ns) || !WebhookMatching.objectMatches(hook, a)) {
      return null;
    }
    return version;
  }

  /** The matchConditions: true to call; a failed evaluation follows failurePolicy. */
  private static Future<Boolean> conditions(Webhook hook, Attributes a, JsonObject review) {
    if (hook.conditions().isEmpty()) {
      return Future.succeededFuture(true);
    }
    JsonObject req = review.getJsonObject("request");
    try {
      return Future.succeededFuture(hook.conditions().matches(req.getJsonObject("object"),
          req.getJsonObject("oldObject"), req));
    } catch (IllegalStateException e) {
      if (hook.ignoreFailures()) {
        LOG.warning("admission: webhook " + hook.name() + " skipped (failurePolicy Ignore): " + e.getMessage());
        return Future.succeededFuture(false);
      }
      return Future.failedFuture(AdmissionReviews.callFailed(hook.name(), "failed to evaluate match conditions: "
          + e.getMessage()));
    }
  }

  /** The namespace's labels when some webhook's namespaceSelector needs them, else an empty map. */
  private Future<Map<String, String>> labelsFor(Attributes a, List<Webhook> hooks) {
    if (!WebhookMatching.needsNamespaceLabels(a) || hooks.stream().allMatch(h -> h.namespaceSelector() == null
        || h.namespaceSelector().isEmpty())) {
      return Future.succeededFuture(Map.of());
    }
    return namespaceObject(a).map(WebhookMatching::labels);
  }

  /** The request's namespace (watched, else read from storage); null for cluster-scoped requests or when absent. */
  private Future<JsonObject> namespaceObject(Attributes a) {
    if (!WebhookMatching.needsNamespaceLabels(a)) {
      return Future.succeededFuture(null);
    }
    JsonObject known = namespaces.get(a.namespace());
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return namespaceReader.apply(a.namespace()).otherwise(t -> null);
  }

  /**
   * Calls one webhook.
   *
   * @return the verified answer, or null when the call failed and {@code failurePolicy} is Ignore; fails with the
   *     500 of {@link AdmissionReviews#callFailed} when it failed and the policy is Fail
   */
  private Future<AdmissionReviews.Response> call(Webhook hook, JsonObject review, String uid) {
    String url;
    try {
      url = url(hook);
    } catch (IllegalArgumentException e) {
      return failed(hook, "failed to call webhook: " + e.getMessage());
    }
    Promise<AdmissionReviews.Response> done = Promise.promise();
    HttpClient client;
    try {
      client = client(hook.clientConfig().getString("caBundle", ""));
    } catch (RuntimeException e) {
      return failed(hook, "failed to call webhook: " + e.getMessage());
    }
    HttpClientRequest[] sent = new HttpClientRequest[1];
    long timer = vertx.setTimer(hook.timeoutSeconds() * 1000L, t -> {
      if (done.tryFail(new IllegalStateException("failed to call webhook: Post \"" + url
          + "\": context deadline exceeded")) && sent[0] != null) {
        sent[0].reset();
      }
    });
    Buffer body = review.toBuffer();
    client.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url)
            .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, */*"))
        .compose(req -> {
          sent[0] = req;
          return req.send(body);
        })
        .compose(resp -> readBounded(resp, MAX_RESPONSE_BYTES).map(b -> {
          if (resp.statusCode() < 200 || resp.statusCode() > 299) {
            throw new IllegalStateException("failed to call webhook: the server responded with the status code "
                + resp.statusCode() + " but did not return more information");
          }
          JsonObject answer;
          try {
            answer = b.toJsonObject();
          } catch (RuntimeException e) {
            throw new IllegalStateException("received invalid webhook response: " + e.getMessage());
          }
          try {
            return AdmissionReviews.parse(answer, uid, hook.mutating());
          } catch (IllegalArgumentException e) {
            throw new IllegalStateException("received invalid webhook response: " + e.getMessage());
          }
        }))
        .onComplete(ar -> {
          vertx.cancelTimer(timer);
          if (ar.succeeded()) {
            done.tryComplete(ar.result());
          } else {
            done.tryFail(ar.cause() instanceof IllegalStateException ? ar.cause()
                : new IllegalStateException("failed to call webhook: Post \"" + url + "\": "
                + goError(ar.cause(), url)));
          }
        });
    return done.future().recover(t -> failed(hook, t.getMessage()));
  }

  /**
   * Reads a webhook's answer, at most {@code max} bytes: a larger one (by its {@code Content-Length} or as it
   * streams) fails with {@code received invalid webhook response: response body larger than <max> bytes} and its
   * request is reset, so a broken webhook cannot exhaust the node's memory (the call then follows failurePolicy).
   *
   * @param resp the webhook's response
   * @param max  the most bytes accepted
   * @return the body
   */
  static Future<Buffer> readBounded(io.vertx.core.http.HttpClientResponse resp, long max) {
    String tooLarge = "received invalid webhook response: response body larger than " + max + " bytes";
    String cl = resp.getHeader("Content-Length");
    if (cl != null) {
      try {
        if (Long.parseLong(cl.trim()) > max) {
          resp.request().reset();
          return Future.failedFuture(new IllegalStateException(tooLarge));
        }
      } catch (NumberFormatException ignored) {
        // Vert.x refuses a malformed length itself
      }
    }
    Promise<Buffer> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    resp.exceptionHandler(p::tryFail);
    resp.handler(chunk -> {
      if (p.future().isComplete()) {
        return;
      }
      if (acc.length() + (long) chunk.length() > max) {
        p.tryFail(new IllegalStateException(tooLarge));
        resp.request().reset();
      } else {
        acc.appendBuffer(chunk);
      }
    });
    resp.endHandler(v -> p.tryComplete(acc));
    return p.future();
  }

  private static Future<AdmissionReviews.Response> failed(Webhook hook, String reason) {
    if (hook.ignoreFailures()) {
      LOG.warning("admission: failed calling webhook \"" + hook.name() + "\", failing open (failurePolicy "
          + "Ignore): " + reason);
      return Future.succeededFuture(null);
    }
    LOG.warning("admission: failed calling webhook \"" + hook.name() + "\", failing closed: " + reason);
    return Future.failedFuture(AdmissionReviews.callFailed(hook.name(), reason));
  }

  /** A Java I/O failure in Go's words where they are well known (connection refused, unknown authority). */
  private static String goError(Throwable t, String url) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null && all.length() < 4096; c = c.getCause() == c ? null : c.getCause()) {
      all.append(c.getMessage()).append('\n');
      if (c instanceof java.net.ConnectException) {
        all.append("Connection refused\n");
      }
    }
    String m = all.toString();
    URI u = URI.create(url);
    String hostPort = u.getHost() + ":" + (u.getPort() < 0 ? 443 : u.getPort());
    if (m.contains("Connection refused")) {
      return "dial tcp " + hostPort + ": connect: connection refused";
    }
    if (m.contains("PKIX") || m.contains("unable to find valid certification path")) {
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    }
    if (m.contains("No subject alternative") || m.contains("doesn't match any of the subject alternative names")) {
      return "tls: failed to verify certificate: x509: certificate is valid for other names, not " + u.getHost();
    }
    return String.valueOf(t.getMessage());
  }

  /** @return the webhook's URL with upstream's {@code ?timeout=<n>s} */
  private String url(Webhook hook) {
    JsonObject cc = hook.clientConfig();
    String base;
    if (cc.getValue("url") instanceof String u && !u.isEmpty()) {
      base = u;
    } else {
      JsonObject svc = cc.getJsonObject("service", new JsonObject());
      String ns = svc.getString("namespace", "");
      String name = svc.getString("name", "");
      int port = svc.getInteger("port", 443);
      String root = services.resolve(ns, name, port).orElseThrow(() -> new IllegalArgumentException("service \""
          + ns + "/" + name + ":" + port + "\" has no address in --service-resolution"));
      String path = svc.getString("path", "");
      base = root.replaceAll("/+$", "") + (path.isEmpty() ? "" : path.startsWith("/") ? path : "/" + path);
    }
    return base + (base.contains("?") ? "&" : "?") + "timeout=" + hook.timeoutSeconds() + "s";
  }

  /** @return the client verifying servers against {@code caBundle} (base64 PEM; empty: the JDK's roots) */
  private HttpClient client(String caBundle) {
    return clients.computeIfAbsent(caBundle, ca -> {
      HttpClientOptions o = new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1).setUseAlpn(false)
          .setSsl(true).setVerifyHost(true).setKeepAlive(true).setConnectTimeout(10_000)
          .setEnabledSecureTransportProtocols(Set.of("TLSv1.2", "TLSv1.3"));
      if (!ca.isEmpty()) {
        String pem = new String(Base64.getDecoder().decode(ca), StandardCharsets.US_ASCII);
        o.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(pem)));
      }
      return vertx.createHttpClient(o);
    });
  }

  /** Closes the HTTP clients. */
  public void close() {
    clients.values().forEach(HttpClient::close);
    clients.clear();
  }
}
