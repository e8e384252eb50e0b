package io.mvproxy.registry.impl;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.CrdRuntime;
import io.mvproxy.registry.impl.rest.NamespaceAdmission;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The registry's entry point for API sources: builds the {@link CrdApiSource} of one kind, described as a
 * CustomResourceDefinition-shaped definition, over the node's storage (kube-apiserver's
 * {@code registry/generic/registry.Store} built per kind). Custom resources (the CRD plugin) and the built-in kinds
 * (the built-in API plugin) are both its clients.
 */
public final class Kinds {
  private Kinds() {
  }

  /**
   * Builds a source, not started.
   *
   * @param crd        the parsed definition
   * @param manifest   the definition's manifest (kept by the source, copied)
   * @param context    the node's services (its storage may be null in tests: no store)
   * @param storageKey the storage key prefix of its objects
   * @param discovery  what the source lists in discovery
   * @param strategy   per-kind behaviour
   * @param options    tunables
   * @return the source; call {@link CrdApiSource#start()} before serving
   */
  public static CrdApiSource build(CrdDefinition crd, JsonObject manifest, ApiSourceContext context, String storageKey,
                                   List<ServedGroupVersion> discovery, ObjectStrategy strategy,
                                   CrdSourceOptions options) {
    ResourceStorage store = context.storage() == null ? null : context.storage().resource(storageKey, crd.group(),
        crd.plural());
    CrdRuntime runtime = new CrdRuntime(context.vertx(), crd, store, options, strategy, context::admission);
    io.mvproxy.registry.impl.conversion.CrdConversion conversion = io.mvproxy.registry.impl.conversion.CrdConversion.of(manifest);
    io.mvproxy.registry.impl.admission.WebhookClient http = null;
    if (conversion.webhook()) {
      http = new io.mvproxy.registry.impl.admission.WebhookClient(context.vertx(), context::serviceUrl);
      runtime.converter(new io.mvproxy.registry.impl.conversion.WebhookConverter(http, conversion, crd.name()));
    }
    return new CrdApiSource(crd, manifest.copy(), store, runtime, discovery, http);
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
  public static CrdApiSource createBuiltIn(JsonObject manifest, ApiSourceContext context, String storageName,
                                           int groupPriority, int versionPriority, ObjectStrategy strategy) {
    CrdDefinition crd = CrdParser.parseBuiltIn(manifest);
    ObjectStrategy s = !crd.namespaced() ? strategy : new NamespaceAdmission(context::namespaceLifecycle).then(strategy);
    return build(crd, manifest, context, storageName, CrdDiscovery.groupVersions(crd, groupPriority, versionPriority,
        strategy::allowsVerb, true), s, CrdSourceOptions.DEFAULTS).start();
  }
}
