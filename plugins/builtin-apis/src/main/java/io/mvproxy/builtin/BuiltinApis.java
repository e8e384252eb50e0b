package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.NamespaceLifecycle;
import io.mvproxy.authorization.NodeAuthorization;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.admission.WebhookConfigurations;
import io.mvproxy.registry.impl.admission.WebhookDispatcher;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.security.Authenticator;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The built-in API set every node serves, created once per node (not hot-loaded): core {@code v1} namespaces,
 * configmaps, secrets, serviceaccounts, events; {@code coordination.k8s.io/v1} leases;
 * {@code rbac.authorization.k8s.io/v1} roles, rolebindings, clusterroles, clusterrolebindings,
 * {@code admissionregistration.k8s.io/v1} validatingwebhookconfigurations and mutatingwebhookconfigurations
 * ({@link WebhookConfigStrategy}; their webhooks called by {@link WebhookDispatcher}),
 * validatingadmissionpolicies and validatingadmissionpolicybindings ({@link AdmissionPolicyStrategy});
 * {@code apiextensions.k8s.io/v1} customresourcedefinitions and {@code apiregistration.k8s.io/v1} apiservices
 * (written through the API, {@link CrdStrategy} and {@link ApiServiceStrategy}, or published from the fleet's
 * plugins, {@link CrdRegistry}) (all stored, see
 * {@link BuiltinKinds}); and the review APIs of {@link ReviewsApiSource}.
 *
 * @param sources    the API sources, in a fixed order
 * @param namespaces the node's NamespaceLifecycle (for every namespaced kind)
 * @param started    completes when the system namespaces and the default RBAC policy are stored
 * @param crds       publishes the CRDs the node's plugins loaded as {@code apiextensions.k8s.io/v1} objects (the
 *                   node calls it on every change of its plugins)
 * @param apiServices publishes the APIServices the node's plugins loaded as {@code apiregistration.k8s.io/v1}
 *                   objects (same calls)
 * @param admission  the node's webhook admission, fed by watches of the stored
 *                   {@code admissionregistration.k8s.io/v1} webhook configurations and of the namespaces
 */
public record BuiltinApis(List<ApiSource> sources, NamespaceLifecycle namespaces, Future<Void> started,
                          CrdRegistry crds, CrdRegistry apiServices, WebhookDispatcher admission)
    implements io.mvproxy.api.BuiltinApiSet {
  private static final String CRDS = "customresourcedefinitions.apiextensions.k8s.io";
  private static final String APISERVICES = "apiservices.apiregistration.k8s.io";
  private static final String VALIDATING = "validatingwebhookconfigurations.admissionregistration.k8s.io";
  private static final String MUTATING = "mutatingwebhookconfigurations.admissionregistration.k8s.io";
  private static final String POLICIES = "validatingadmissionpolicies.admissionregistration.k8s.io";
  private static final String BINDINGS = "validatingadmissionpolicybindings.admissionregistration.k8s.io";
  /**
   * ServiceAccount's update validates the whole object again ({@code ValidateServiceAccountUpdate}), with core's
   * metadata rules.
   */
  static final ObjectStrategy WHOLE_ON_UPDATE = new ObjectStrategy() {
    @Override
    public boolean validatesMetaOnUpdate() {
      return true;
    }

    /** @return true: core's {@code ValidateObjectMeta} checks a ServiceAccount's finalizer names */
    @Override
    public boolean kubeFinalizerNames() {
      return true;
    }
  };

  /** Copies the list. */
  public BuiltinApis {
    sources = List.copyOf(sources);
  }

  /**
   * @param ctx           the node's services; its {@code namespaceLifecycle()} should answer with
   *                      {@link #namespaces()} of the result (the node wires it)
   * @param authorization the node's authorization (its index is fed from the stored RBAC objects)
   * @return the built-in APIs, started
   */
  public static BuiltinApis create(ApiSourceContext ctx, NodeAuthorization authorization) {
    return create(ctx, authorization, null, (token, auds) -> Future.succeededFuture(ctx.authenticateToken(token)
        .map(u -> new Authenticator.Review(u, auds, null)).orElse(new Authenticator.Review(null, List.of(), null))));
  }

  /**
   * @param ctx           the node's services; {@link io.mvproxy.api.BuiltinApiOptions} among them sets the Events'
   *                      TTL ({@link EventTtl}; kube-apiserver's 1h when absent)
   * @param authorization the node's authorization
   * @param tokens        the node's service account tokens: with an issuer, {@code serviceaccounts/token} is served;
   *                      their ServiceAccounts are looked up in this node's built-in store; null: none
   * @param tokenReview   TokenReview's verdict of a token for the requested audiences (never failing)
   * @return the built-in APIs, started
   */
  public static BuiltinApis create(ApiSourceContext ctx, NodeAuthorization authorization, ServiceAccountTokens tokens,
                                   BiFunction<String, List<String>, Future<Authenticator.Review>> tokenReview) {
    Namespaces namespaces = new Namespaces();
    CrdStrategy crdStrategy = new CrdStrategy();
    ApiServiceStrategy apiServiceStrategy = new ApiServiceStrategy();
    Map<String, ObjectStrategy> strategies = Map.ofEntries(
        Map.entry("namespaces", namespaces),
        Map.entry("configmaps", new ConfigData(false).then(Printers.configMaps())),
        Map.entry("secrets", new Secrets().then(new ConfigData(true)).then(Printers.secrets())),
        Map.entry("serviceaccounts", WHOLE_ON_UPDATE.then(Printers.serviceAccounts())),
        Map.entry("events", new Events().then(new EventTable())),
        Map.entry("events.events.k8s.io", new EventsV1().then(new EventTable())),
        Map.entry("roles.rbac.authorization.k8s.io", new Rbac(authorization, false).then(Printers.createdAt())),
        Map.entry("clusterroles.rbac.authorization.k8s.io", new Rbac(authorization, false)
            .then(Printers.createdAt())),
        Map.entry("rolebindings.rbac.authorization.k8s.io", new Rbac(authorization, true).then(Printers.bindings())),
        Map.entry("clusterrolebindings.rbac.authorization.k8s.io", new Rbac(authorization, true)
            .then(Printers.bindings())),
        Map.entry("leases.coordination.k8s.io", new Leases()),
        Map.entry(CRDS, crdStrategy.then(Printers.createdAt())),
        Map.entry(APISERVICES, apiServiceStrategy),
        Map.entry(VALIDATING, new WebhookConfigStrategy(false)),
        Map.entry(MUTATING, new WebhookConfigStrategy(true)),
        Map.entry(POLICIES, new AdmissionPolicyStrategy(false)),
        Map.entry(BINDINGS, new AdmissionPolicyStrategy(true)));
    Map<String, CrdApiSource> kinds = BuiltinKinds.create(ctx, strategies);
    CrdApiSource nsSource = kinds.get("namespaces");
    WebhookDispatcher admission = new WebhookDispatcher(ctx.vertx(), ctx::serviceUrl,
        name -> nsSource.store() == null ? Future.failedFuture("no storage")
            : nsSource.store().get(name).map(so -> so.object()));
    if (nsSource.store() != null) {
      kinds.get(VALIDATING).follow(e -> admission.configEvent(WebhookConfigurations.VALIDATING, e));
      kinds.get(MUTATING).follow(e -> admission.configEvent(WebhookConfigurations.MUTATING, e));
      nsSource.follow(admission::namespaceEvent);
      kinds.get(POLICIES).follow(admission.policies()::policyEvent);
      kinds.get(BINDINGS).follow(admission.policies()::bindingEvent);
    }
    Future<Void> ns = namespaces.start(kinds.get("namespaces"), ctx.vertx());
    java.time.Duration eventTtl = ctx.service(io.mvproxy.api.BuiltinApiOptions.class)
        .orElse(io.mvproxy.api.BuiltinApiOptions.DEFAULTS).eventTtl();
    if (!eventTtl.isZero()) {
      new EventTtl(ctx.vertx(), eventTtl, System::currentTimeMillis, EventTtl.sweepPeriodMillis(eventTtl))
          .start(kinds.get("events").store());
    }
    Future<Void> rbac = new RbacFeed(authorization.index()).start(kinds.get("roles.rbac.authorization.k8s.io"),
        kinds.get("clusterroles.rbac.authorization.k8s.io"), kinds.get("rolebindings.rbac.authorization.k8s.io"),
        kinds.get("clusterrolebindings.rbac.authorization.k8s.io"), ctx.vertx());
    crdStrategy.useStore(kinds.get(CRDS).store());
    CrdRegistry crds = new CrdRegistry(ctx.vertx(), ctx.serverId(), kinds.get(CRDS).store());
    apiServiceStrategy.useStore(kinds.get(APISERVICES).store());
    CrdRegistry apiServices = new CrdRegistry(ctx.vertx(), ctx.serverId(), kinds.get(APISERVICES).store(),
        CrdRegistry.Kind.APISERVICES);
    List<ApiSource> out = new ArrayList<>();
    CrdApiSource accounts = kinds.get("serviceaccounts");
    if (tokens != null) {
      tokens.useGetter(new ServiceAccountCache(accounts));
    }
    kinds.values().forEach(k -> out.add(new PatchStrategyOpenApi(new ProtobufBodies(k == accounts && tokens != null
        && tokens.issuer() != null ? new TokenRequests(accounts, tokens) : k), k.definition().plural())));
    out.add(new ReviewsApiSource(new AccessReviews(authorization), new AuthenticationReviews(tokenReview)));
    return new BuiltinApis(out, namespaces, Future.all(ns, rbac).mapEmpty(), crds, apiServices, admission);
  }

  /**
   * Stores the CRDs as {@code apiextensions.k8s.io/v1} objects through {@link #crds()} and the APIServices as
   * {@code apiregistration.k8s.io/v1} objects through {@link #apiServices()}.
   */
  @Override
  public void publishDefinitions(List<io.vertx.core.json.JsonObject> manifests) {
    crds.publish(manifests.stream().filter(m -> !"APIService".equals(m.getString("kind"))).toList());
    apiServices.publish(manifests.stream().filter(m -> "APIService".equals(m.getString("kind"))).toList());
  }

  @Override
  public Future<Void> definitionsPublished() {
    return Future.all(crds.published(), apiServices.published()).mapEmpty();
  }
}
