package io.mvproxy.registry;

import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Per-kind behaviour of a kind served through {@link Registry#serve}, as kube-apiserver's
 * {@code rest.RESTCreateStrategy} and {@code rest.RESTUpdateStrategy}
 * ({@code staging/src/k8s.io/apiserver/pkg/registry/rest/create.go}, {@code update.go}) plug into
 * {@code registry/generic/registry.Store}. Every method has a default that does nothing, so a plugin overrides only
 * what its kind needs; {@link #NONE} is the kind with no behaviour beyond its schema.
 *
 * <p>Order on a create: the body is decoded, pruned and defaulted by the schema, the generic metadata rules run
 * ({@code rest.BeforeCreate}: uid, creationTimestamp, generation, status reset when the kind has a status
 * subresource), then {@link #prepareForCreate}, then {@link #validate}; the schema validation and the admission
 * webhooks follow. Updates (PUT, every PATCH, server-side apply, of the object or its {@code status}) run
 * {@link #prepareForUpdate} then {@link #validateUpdate} on every attempt of the guaranteed update. Any violation
 * answers {@code 422 Invalid} listing the schema's errors first, then the strategy's; nothing is stored. Unlike
 * kube-apiserver, whose {@code Validate} sees the object after the mutating admission webhooks, these checks run
 * before them (a webhook's change is checked by the schema only). A hook may
 * also throw an {@link io.mvproxy.api.StatusException}, answered as is. Hooks run on a Vert.x event loop: they must
 * not block.
 */
public interface KindStrategy {
  /** No behaviour beyond the schema. */
  KindStrategy NONE = new KindStrategy() {
  };

  /**
   * {@code PrepareForCreate}: normalises a new object before validation (e.g. sets {@code status}, clears fields
   * clients may not set).
   *
   * @param req the request
   * @param obj the object about to be created, already defaulted (may be changed in place and returned)
   * @return the object to validate and store
   */
  default JsonObject prepareForCreate(WriteRequest req, JsonObject obj) {
    return obj;
  }

  /**
   * {@code Validate}: the kind's checks of a new object that its OpenAPI schema cannot express.
   *
   * @param req the request
   * @param obj the prepared object (do not change)
   * @return the violations, empty when valid
   */
  default List<FieldViolation> validate(WriteRequest req, JsonObject obj) {
    return List.of();
  }

  /**
   * {@code PrepareForUpdate}: normalises the next state of an object (e.g. keeps {@code status} on a spec update);
   * {@code req.status()} tells a write of the {@code status} subresource.
   *
   * @param req the request
   * @param obj the next object (may be changed in place and returned)
   * @param old the stored object (do not change)
   * @return the object to validate and store
   */
  default JsonObject prepareForUpdate(WriteRequest req, JsonObject obj, JsonObject old) {
    return obj;
  }

  /**
   * {@code ValidateUpdate}: the kind's checks of an update (e.g. immutable fields).
   *
   * @param req the request
   * @param obj the prepared next object (do not change)
   * @param old the stored object (do not change)
   * @return the violations, empty when valid
   */
  default List<FieldViolation> validateUpdate(WriteRequest req, JsonObject obj, JsonObject old) {
    return List.of();
  }

  /**
   * Whether the kind serves a verb at all; a verb it does not serve is left out of discovery and answered
   * {@code 405 MethodNotAllowed}, as kube-apiserver installs no route for a verb its storage does not implement.
   *
   * @param verb a Kubernetes verb ({@code get}, {@code list}, {@code watch}, {@code create}, {@code update},
   *             {@code patch}, {@code delete}, {@code deletecollection})
   * @return true when served (the default: every verb)
   */
  default boolean allowsVerb(String verb) {
    return true;
  }
}
