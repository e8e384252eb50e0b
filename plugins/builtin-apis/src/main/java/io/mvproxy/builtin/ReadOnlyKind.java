package io.mvproxy.builtin;

import io.mvproxy.registry.rest.ObjectStrategy;
import java.util.Set;

/**
 * The behaviour of {@code apiextensions.k8s.io/v1} customresourcedefinitions in mvproxy: read-only ({@code get},
 * {@code list}, {@code watch}; every write answers {@code 405 MethodNotAllowed}), because a node's APIs come from
 * its plugin jars ({@link CrdRegistry} stores what they loaded), not from CRD objects written through the API as in
 * kube-apiserver.
 */
final class ReadOnlyKind implements ObjectStrategy {
  private static final Set<String> VERBS = Set.of("get", "list", "watch");

  @Override
  public boolean allowsVerb(String verb) {
    return VERBS.contains(verb);
  }
}
