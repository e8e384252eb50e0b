/**
 * The registry's public API for code plugins: what a plugin jar imports to serve a kind of its own through the
 * node's generic REST registry, as kube-apiserver's built-in kinds are served by
 * {@code k8s.io/apiserver/pkg/registry/generic/registry.Store} with a {@code rest.RESTCreateStrategy} /
 * {@code rest.RESTUpdateStrategy}.
 *
 * <p>A plugin describes the kind ({@link io.mvproxy.registry.KindDefinition}: group, version, kind, plural, scope,
 * OpenAPI v3 schema, printer columns, status subresource), optionally adds behaviour
 * ({@link io.mvproxy.registry.KindStrategy}: prepare for create/update, validate, returning
 * {@link io.mvproxy.registry.FieldViolation}s, with the request as a {@link io.mvproxy.registry.WriteRequest}), and
 * asks {@link io.mvproxy.registry.Registry#serve} for the {@link io.mvproxy.api.ApiSource} it returns from its
 * {@link io.mvproxy.api.ApiSourceProvider}. The kind then gets the full REST surface: create, get, list, update,
 * patch (JSON, merge, apply), delete, deletecollection, watch, Tables, label and field selectors, schema pruning,
 * defaulting and validation (CEL included), managed fields, admission webhooks, with its objects in the node's
 * storage backend shared by every node that serves the kind.
 *
 * <p>Everything under {@code io.mvproxy.registry.impl} is internal to the node: a code plugin's class loader refuses
 * it, and {@code RegistryBoundaryTest} fails on a plugin source that imports it.
 */
package io.mvproxy.registry;
