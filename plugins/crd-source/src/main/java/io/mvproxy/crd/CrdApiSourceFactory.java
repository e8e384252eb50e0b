package io.mvproxy.crd;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.crd.model.CrdDefinition;
import io.mvproxy.crd.model.CrdParser;
import io.mvproxy.crd.rest.CrdRuntime;
import io.mvproxy.crd.rest.NamespaceAdmission;
import io.mvproxy.crd.rest.ObjectStrategy;
import io.mvproxy.api.storage.ResourceStorage;
import io.vertx.core.json.JsonObject;

/**
 * Builds {@link CrdApiSource}s from {@code apiextensions.k8s.io/v1 CustomResourceDefinition} manifests
 * (registered in {@code META-INF/services/io.mvproxy.api.ApiSourceFactory}).
 */
public final class CrdApiSourceFactory implements ApiSourceFactory {
  private final CrdSourceOptions options;

  /** A factory with {@link CrdSourceOptions#DEFAULTS} (the ServiceLoader constructor). */
  public CrdApiSourceFactory() {
    this(CrdSourceOptions.DEFAULTS);
  }

  /** @param options tunables for every source built */
  public CrdApiSourceFactory(CrdSourceOptions options) {
    this.options = options;
  }

  /** @return true for {@code apiextensions.k8s.io/v1} {@code CustomResourceDefinition} */
  @Override
  public boolean supports(String apiVersion, String kind) {
    return "apiextensions.k8s.io/v1".equals(apiVersion) && "CustomResourceDefinition".equals(kind);
  }

  /**
   * Validates the manifest and builds its source over the node's storage ({@code <group>/<plural>}). Does not
   * block.
   *
   * @throws io.mvproxy.api.StatusException 422 Invalid with causes when the CRD is not valid
   */
  @Override
  public CrdApiSource create(JsonObject manifest, ApiSourceContext context) {
    return build(manifest, context).start();
  }

  /** Validates the CRD as kube-apiserver would (422 with causes when invalid). */
  @Override
  public void validate(JsonObject manifest) {
    CrdParser.parse(manifest);
  }

  /** Validates and builds a source (422 when invalid). */
  CrdApiSource build(JsonObject manifest, ApiSourceContext context) {
    CrdDefinition crd = CrdParser.parse(manifest);
    ObjectStrategy strategy = new NamespaceAdmission(context::namespaceLifecycle);
    return build(crd, manifest, context, crd.storageKey(), CrdDiscovery.groupVersions(crd), strategy);
  }

  private CrdApiSource build(CrdDefinition crd, JsonObject manifest, ApiSourceContext context, String storageKey,
                             java.util.List<io.mvproxy.api.discovery.ServedGroupVersion> discovery,
                             ObjectStrategy strategy) {
    ResourceStorage store = context.storage() == null ? null : context.storage().resource(storageKey);
    return new CrdApiSource(crd, manifest.copy(), store, new CrdRuntime(context.vertx(), crd, store, options,
        strategy), discovery);
  }

  /**
   * Builds and starts the source of a built-in kind described as a CRD manifest (the built-in API source's way to
   * share this REST surface): its own storage name, kube-apiserver's discovery priorities, and per-kind behaviour.
   *
   * @param manifest        a valid CRD manifest describing the kind (group {@code ""} allowed for core)
   * @param context         the node's services
   * @param storageName     the storage key prefix of its objects (kube-apiserver's resource prefix, e.g.
   *                        {@code namespaces}: keys {@code /registry/namespaces/<name>})
   * @param groupPriority   discovery {@code groupPriorityMinimum}
   * @param versionPriority discovery {@code versionPriority}
   * @param strategy        per-kind behaviour (the NamespaceLifecycle check is added for namespaced kinds)
   * @return the started source
   * @throws io.mvproxy.api.StatusException 422 when the manifest is invalid
   */
  public CrdApiSource createBuiltIn(JsonObject manifest, ApiSourceContext context, String storageName,
                                    int groupPriority, int versionPriority, ObjectStrategy strategy) {
    CrdDefinition crd = CrdParser.parseBuiltIn(manifest);
    ObjectStrategy s = !crd.namespaced() ? strategy : new NamespaceAdmission(context::namespaceLifecycle).then(strategy);
    return build(crd, manifest, context, storageName,
        CrdDiscovery.groupVersions(crd, groupPriority, versionPriority, strategy::allowsVerb), s).start();
  }
}
