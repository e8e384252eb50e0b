package io.mvproxy.controllers;

/**
 * What the garbage collector learned about one owner reference ({@code classifyReferences} in upstream's
 * {@code garbagecollector.go}, plus mvproxy's {@link Unknown}).
 */
public sealed interface OwnerState {
  /** The owner exists with the referenced uid and is not being deleted in the foreground. */
  record Solid() implements OwnerState {
  }

  /**
   * The owner is absent: a node serving its resource answered 404 for that name, or the name now has another uid.
   */
  record Dangling() implements OwnerState {
  }

  /** The owner exists and is being deleted in the foreground (its dependents go first). */
  record Waiting() implements OwnerState {
  }

  /**
   * The owner cannot be read: its group-version is Stale or unknown to discovery, or the read failed (503, 403,
   * time-out, a 404 that is not an object's). Never absent: the dependent is kept.
   *
   * @param reason why, for the event and the log
   */
  record Unknown(String reason) implements OwnerState {
  }

  /** A cluster-scoped dependent naming a namespaced owner: invalid, never collected. */
  record InvalidNamespace() implements OwnerState {
  }

  /**
   * Classifies the answer to a GET of the owner by name.
   *
   * @param r     the answer
   * @param ref   the reference
   * @return the state: 200 same uid -> solid or waiting; 200 other uid -> dangling; 404 whose Status names the
   *     owner ({@code details.name}, what a serving node's storage says) -> dangling; anything else -> unknown
   */
  static OwnerState of(ApiResponse r, OwnerReference ref) {
    return of(r, ref, false);
  }

  /**
   * Classifies the answer to a GET of the owner by name, by mvproxy's rule or by upstream's.
   *
   * @param r             the answer
   * @param ref           the reference
   * @param anyNotFound   upstream's rule ({@code errors.IsNotFound} in {@code attemptToDeleteItem}): ANY 404 makes
   *                      the owner absent, including a server's "the server could not find the requested resource"
   *                      for a resource it does not serve; false: mvproxy's rule ({@link #of(ApiResponse,
   *                      OwnerReference)})
   * @return the state
   */
  static OwnerState of(ApiResponse r, OwnerReference ref, boolean anyNotFound) {
    if (anyNotFound && r.notFound()) {
      return new Dangling();
    }
    if (r.ok()) {
      io.vertx.core.json.JsonObject md = r.body().getJsonObject("metadata", new io.vertx.core.json.JsonObject());
      if (!ref.uid().equals(md.getString("uid"))) {
        return new Dangling();
      }
      boolean foreground = md.getValue("deletionTimestamp") != null && md.getJsonArray("finalizers",
          new io.vertx.core.json.JsonArray()).contains(GarbageCollector.FOREGROUND);
      return foreground ? new Waiting() : new Solid();
    }
    if (r.notFound() && "NotFound".equals(r.body().getString("reason")) && ref.name().equals(
        r.body().getJsonObject("details", new io.vertx.core.json.JsonObject()).getString("name"))) {
      return new Dangling();
    }
    return new Unknown(r.status() == 0 ? r.message() : r.status() + " " + r.message());
  }
}
