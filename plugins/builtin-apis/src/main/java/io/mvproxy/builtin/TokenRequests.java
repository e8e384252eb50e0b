package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ForwardingApiSource;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.security.serviceaccount.ServiceAccountClaims;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * The {@code serviceaccounts/token} subresource ({@code pkg/registry/core/serviceaccount/storage/token.go}): a
 * create of an {@code authentication.k8s.io/v1} TokenRequest answers 201 with a signed token for the account
 * ({@code status.token}, {@code status.expirationTimestamp}), bound to its uid; nothing is stored.
 * {@code spec.audiences} defaults to {@code --api-audiences}, {@code spec.expirationSeconds} to 3600 (at least 600,
 * at most 2^32: 422 with kube's texts; above {@code --service-account-max-token-expiration} it is shortened with a
 * {@code Warning}); a missing account is 404; {@code spec.boundObjectRef} is refused (400: mvproxy serves no pods,
 * and secret-bound tokens are not done). Every other request, and every other method
 * ({@link ForwardingApiSource}) but the CRD capability, goes to the serviceaccounts source unchanged; its discovery
 * lists the subresource.
 */
final class TokenRequests extends ForwardingApiSource {
  /** kube's {@code MinTokenAgeSec}. */
  static final long MIN_SECONDS = 600;
  /** kube's {@code MaxTokenAgeSec}. */
  static final long MAX_SECONDS = 1L << 32;
  /** {@code SetDefaults_TokenRequestSpec}. */
  static final long DEFAULT_SECONDS = 3600;
  private static final Gvr TOKEN_REQUESTS = new Gvr("authentication.k8s.io", "v1", "tokenrequests");
  private final BiFunction<String, String, Future<JsonObject>> lookup;
  private final ServiceAccountTokens tokens;

  /**
   * @param accounts the serviceaccounts source
   * @param tokens   the node's service account tokens (with an issuer)
   */
  TokenRequests(CrdApiSource accounts, ServiceAccountTokens tokens) {
    this(accounts, accounts::get, tokens);
  }

  /**
   * @param accounts the serviceaccounts source
   * @param lookup   reads one stored account: (namespace, name) to the object, or null when there is none
   * @param tokens   the node's service account tokens (with an issuer)
   */
  TokenRequests(ApiSource accounts, BiFunction<String, String, Future<JsonObject>> lookup,
                ServiceAccountTokens tokens) {
    super(accounts);
    this.lookup = lookup;
    this.tokens = tokens;
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    if (!"token".equals(info.subresource())) {
      super.handle(ctx, info, user);
      return;
    }
    if (!"create".equals(info.verb())) {
      throw StatusException.methodNotAllowed();
    }
    JsonObject req = ReviewsApiSource.body(ctx);
    String name = info.name();
    String ns = info.namespace();
    JsonObject md = req.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    String bodyName = md.getValue("name") instanceof String n ? n : "";
    String bodyNs = md.getValue("namespace") instanceof String n ? n : "";
    if (!bodyName.isEmpty() && !bodyName.equals(name)) {
      throw invalid(name, "metadata.name", bodyName, "must match the service account name if specified");
    }
    if (!bodyNs.isEmpty() && !bodyNs.equals(ns)) {
      throw invalid(name, "metadata.namespace", bodyNs, "must match the service account namespace if specified");
    }
    JsonObject spec = req.getValue("spec") instanceof JsonObject sp ? sp.copy() : new JsonObject();
    if (spec.getValue("boundObjectRef") instanceof JsonObject ref) {
      throw StatusException.badRequest("cannot bind token to object of type " + ref.getString("apiVersion", "")
          + ", Kind=" + ref.getString("kind", "") + ": mvproxy serves no pods, and secret-bound tokens are not done");
    }
    long seconds = spec.getValue("expirationSeconds") instanceof Number n ? n.longValue() : DEFAULT_SECONDS;
    if (seconds < MIN_SECONDS) {
      throw invalid(name, "spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes");
    }
    if (seconds > MAX_SECONDS) {
      throw invalid(name, "spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds");
    }
    long max = tokens.maxExpiration().getSeconds();
    if (max > 0 && seconds > max) {
      io.mvproxy.api.Warnings.add(ctx, "requested expiration of " + seconds + " seconds shortened to " + max
          + " seconds");
      seconds = max;
    }
    List<String> audiences = new ArrayList<>();
    if (spec.getValue("audiences") instanceof JsonArray given) { // kubectl 1.27 sends "audiences": null
      given.forEach(a -> audiences.add(String.valueOf(a)));
    }
    if (audiences.isEmpty()) {
      audiences.addAll(tokens.apiAudiences());
    }
    long validity = seconds;
    Future<JsonObject> sa = lookup.apply(ns, name);
    sa.onComplete(ar -> {
      if (ar.failed()) {
        StatusException.internal(ar.cause()).respond(ctx);
        return;
      }
      if (ar.result() == null) {
        StatusException.notFound(new Gvr("", "v1", "serviceaccounts"), name).respond(ctx);
        return;
      }
      Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      Instant exp = now.plusSeconds(validity);
      String uid = ar.result().getJsonObject("metadata").getString("uid", "");
      String token = tokens.issuer().sign(new ServiceAccountClaims(ns, name, uid, audiences, now, exp,
          UUID.randomUUID().toString()));
      JsonObject outMd = md.copy().put("creationTimestamp", now.toString());
      JsonObject out = new JsonObject().put("kind", "TokenRequest").put("apiVersion", "authentication.k8s.io/v1")
          .put("metadata", outMd)
          .put("spec", spec.put("audiences", new JsonArray(audiences)).put("expirationSeconds", validity)
              .put("boundObjectRef", null))
          .put("status", new JsonObject().put("token", token).put("expirationTimestamp", exp.toString()));
      ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json").end(out.encode());
    });
  }

  private static StatusException invalid(String name, String field, Object value, String message) {
    String shown = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    return StatusException.invalid(TOKEN_REQUESTS, "TokenRequest", name, new JsonArray().add(new JsonObject()
        .put("reason", "FieldValueInvalid").put("message", "Invalid value: " + shown + ": " + message)
        .put("field", field)));
  }

  /** @return the serviceaccounts source's group-versions with the {@code token} subresource (create) listed */
  @Override
  public List<ServedGroupVersion> groupVersions() {
    List<ServedGroupVersion> out = new ArrayList<>();
    for (ServedGroupVersion gv : super.groupVersions()) {
      List<DiscoveryResource> rs = new ArrayList<>();
      for (DiscoveryResource r : gv.resources()) {
        List<DiscoverySubresource> subs = new ArrayList<>(r.subresources());
        if ("serviceaccounts".equals(r.resource())) {
          subs.add(new DiscoverySubresource("token", new ResponseKind("authentication.k8s.io", "v1", "TokenRequest"),
              List.of("create")));
        }
        rs.add(new DiscoveryResource(r.resource(), r.singularResource(), r.responseKind(), r.namespaced(), r.verbs(),
            r.shortNames(), r.categories(), subs, r.storageVersionHash()));
      }
      out.add(new ServedGroupVersion(gv.groupVersion(), gv.groupPriorityMinimum(), gv.versionPriority(), rs,
          gv.freshness()));
    }
    return out;
  }

  /**
   * Hidden on purpose: the wrapped built-in kind is a CRD-shaped source that offers its manifest, but a built-in
   * kind (served by the node, as kube-apiserver's) is no CustomResourceDefinition and must never be published as
   * one.
   *
   * @return empty
   */
  @Override
  public Optional<JsonObject> customResourceDefinition() {
    return Optional.empty();
  }
}
