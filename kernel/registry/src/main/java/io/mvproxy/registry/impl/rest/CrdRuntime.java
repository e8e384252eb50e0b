package io.mvproxy.registry.impl.rest;

import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.mvproxy.api.storage.ResourceStorage;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;

/**
 * What the REST handlers of one CRD share: the definition, its storage, options, object rules and a Table renderer
 * per served version.
 */
public final class CrdRuntime {
  private final Vertx vertx;
  private final CrdDefinition crd;
  private final ResourceStorage store;
  private final CrdSourceOptions options;
  private final ObjectRules rules;
  private final Map<String, TableRenderer> tables = new HashMap<>();
  private final ObjectStrategy strategy;
  private final java.util.function.Supplier<io.mvproxy.api.admission.Admission> admission;
  private final java.util.concurrent.atomic.AtomicInteger watches = new java.util.concurrent.atomic.AtomicInteger();
  private volatile io.mvproxy.registry.impl.conversion.WebhookConverter converter;

  /**
   * @param vertx   the node's Vert.x
   * @param crd     the definition
   * @param store   its storage ({@code <group>/<plural>} of the node's storage)
   * @param options tunables
   */
  public CrdRuntime(Vertx vertx, CrdDefinition crd, ResourceStorage store, CrdSourceOptions options) {
    this(vertx, crd, store, options, ObjectStrategy.NONE);
  }

  /**
   * @param vertx    the node's Vert.x
   * @param crd      the definition
   * @param store    its storage
   * @param options  tunables
   * @param strategy per-kind behaviour (admission, defaulting, delete)
   */
  public CrdRuntime(Vertx vertx, CrdDefinition crd, ResourceStorage store, CrdSourceOptions options,
                    ObjectStrategy strategy) {
    this(vertx, crd, store, options, strategy, () -> null);
  }

  /**
   * @param vertx     the node's Vert.x
   * @param crd       the definition
   * @param store     its storage
   * @param options   tunables
   * @param strategy  per-kind behaviour (admission, defaulting, delete)
   * @param admission supplies the node's webhook admission (null while it has none)
   */
  public CrdRuntime(Vertx vertx, CrdDefinition crd, ResourceStorage store, CrdSourceOptions options,
                    ObjectStrategy strategy, java.util.function.Supplier<io.mvproxy.api.admission.Admission> admission) {
    this.admission = admission;
    this.strategy = strategy;
    this.rules = new ObjectRules(strategy.setsGeneration());
    this.vertx = vertx;
    this.crd = crd;
    this.store = store;
    this.options = options;
    for (CrdVersion v : crd.servedVersions()) {
      tables.put(v.name(), new TableRenderer(v, strategy));
    }
  }

  /** @return the node's Vert.x */
  public Vertx vertx() {
    return vertx;
  }

  /** @return the definition */
  public CrdDefinition crd() {
    return crd;
  }

  /** @return the count of watch sessions running now (incremented and decremented by the sessions) */
  public java.util.concurrent.atomic.AtomicInteger watches() {
    return watches;
  }

  /** @return the storage of this CRD's objects */
  public ResourceStorage store() {
    return store;
  }

  /**
   * Sets the CRD's conversion webhook ({@code spec.conversion.strategy: Webhook}); without one versions share the
   * stored form (strategy None: {@code apiVersion} rewritten).
   *
   * @param converter the converter, or null for None
   * @return this
   */
  public CrdRuntime converter(io.mvproxy.registry.impl.conversion.WebhookConverter converter) {
    this.converter = converter;
    return this;
  }

  /** @return the conversion webhook's converter, or null (strategy None) */
  public io.mvproxy.registry.impl.conversion.WebhookConverter converter() {
    return converter;
  }

  /**
   * @param req a request
   * @return the storage as {@code req}'s version sees it: with a conversion webhook a
   *     {@link io.mvproxy.registry.impl.conversion.ConvertingStorage} (objects converted from and to the storage version),
   *     else {@link #store()}
   */
  public ResourceStorage store(CrdRequest req) {
    io.mvproxy.registry.impl.conversion.WebhookConverter c = converter;
    if (c == null || store == null) {
      return store;
    }
    return new io.mvproxy.registry.impl.conversion.ConvertingStorage(store, c, req.apiVersion(), crd.storageApiVersion(),
        crd.kind(), crd.listKind());
  }

  /** @return the options */
  public CrdSourceOptions options() {
    return options;
  }

  /** @return the per-kind behaviour */
  public ObjectStrategy strategy() {
    return strategy;
  }

  /** @return the node's webhook admission, or null when it has none */
  public io.mvproxy.api.admission.Admission admission() {
    return admission.get();
  }

  /** @return the object rules */
  public ObjectRules rules() {
    return rules;
  }

  /** @return the Table renderer of a served version */
  public TableRenderer table(String version) {
    return tables.get(version);
  }
}
