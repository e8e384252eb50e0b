package io.mvproxy.crd;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdDiscovery;
import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.Kinds;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.NamespaceAdmission;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
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

  /** Validates and builds a source, not started (422 when invalid). */
  CrdApiSource build(JsonObject manifest, ApiSourceContext context) {
    CrdDefinition crd = CrdParser.parse(manifest);
    ObjectStrategy strategy = new NamespaceAdmission(context::namespaceLifecycle);
    return Kinds.build(crd, manifest, context, crd.storageKey(), CrdDiscovery.groupVersions(crd), strategy, options);
  }
}
