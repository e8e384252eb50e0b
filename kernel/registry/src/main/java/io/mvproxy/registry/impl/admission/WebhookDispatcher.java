package io.mvproxy.registry.impl.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.admission.Admission;
import io.mvproxy.api.storage.WatchEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
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
  private final Function<String, Future<JsonObject>> namespaceReader;
  private final Map<String, JsonObject> validatingConfigs = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> mutatingConfigs = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> namespaces = new ConcurrentHashMap<>();
  private final ValidatingPolicies policies = new ValidatingPolicies();
  private final WebhookClient http;
  private volatile List<Webhook> validating = List.of();
  private volatile List<Webhook> mutating = List.of();

  /**
   * @param vertx           the node's Vert.x (HTTP clients, timers)
   * @param services        resolves {@code clientConfig.service}
   * @param namespaceReader reads a namespace from storage (a future failing when absent)
   */
  public WebhookDispatcher(Vertx vertx, ServiceResolver services, Function<String, Future<JsonObject>> namespaceReader) {
    this.vertx = vertx;
    this.http = new WebhookClient(vertx, services);
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
        annotate(hook, resp, a);
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
              annotate(hook, resp, a);
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

  /**
   * A webhook's {@code response.auditAnnotations} as {@code <webhook name>/<key>} (mutating and validating
   * dispatchers, before the answer is looked at, a denial included).
   */
  private static void annotate(Webhook hook, AdmissionReviews.Response resp, Attributes a) {
    resp.auditAnnotations().forEach((k, v) -> a.annotations().accept(hook.name() + "/" + k, v));
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
    return http.post(hook.clientConfig(), hook.timeoutSeconds(), review).map(b -> {
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
    }).recover(t -> failed(hook, t instanceof WebhookClient.CallException ? "failed to call webhook: "
        + t.getMessage() : t.getMessage()));
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

  /** Closes the HTTP clients. */
  public void close() {
    http.close();
  }
}
