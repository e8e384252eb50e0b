package io.mvproxy.node.controllers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.mvproxy.controllers.ApiResource;
import io.mvproxy.controllers.GcObserver;
import io.mvproxy.controllers.OwnerReference;

/**
 * The controllers' metrics: {@code mvproxy_garbagecollector_owner_unknown_total{group,version,kind}} (a dependent
 * kept because its owner could not be read, once per sweep and reference) and
 * {@code mvproxy_garbagecollector_deleted_total{group,version,resource,policy}} and
 * {@code mvproxy_garbagecollector_sweeps_total}.
 */
public final class ControllerMetrics implements GcObserver {
  private final MeterRegistry registry;

  /** @param registry the node's registry */
  public ControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void ownerUnknown(OwnerReference owner, String reason) {
    String av = owner.apiVersion();
    int slash = av.indexOf('/');
    Counter.builder("mvproxy_garbagecollector_owner_unknown")
        .description("Dependents kept by the garbage collector because their owner could not be read (Stale or "
            + "unavailable group-version), per sweep")
        .tag("group", slash < 0 ? "" : av.substring(0, slash)).tag("version", av.substring(slash + 1))
        .tag("kind", owner.kind()).register(registry).increment();
  }

  @Override
  public void deleted(ApiResource resource, String policy) {
    Counter.builder("mvproxy_garbagecollector_deleted")
        .description("Dependents the garbage collector deleted because their owners were gone")
        .tag("group", resource.group()).tag("version", resource.version()).tag("resource", resource.resource())
        .tag("policy", policy).register(registry).increment();
  }

  @Override
  public void swept() {
    Counter.builder("mvproxy_garbagecollector_sweeps").description("Garbage collector sweeps finished")
        .register(registry).increment();
  }
}
