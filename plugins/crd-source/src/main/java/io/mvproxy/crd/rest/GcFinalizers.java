package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The garbage-collection finalizers a DELETE puts on an object, as apiserver's
 * {@code registry/generic/registry/store.go} {@code deletionFinalizersForGarbageCollection},
 * {@code shouldOrphanDependents} and {@code shouldDeleteDependents}: DeleteOptions {@code propagationPolicy}
 * {@code Orphan} -> finalizer {@code orphan}, {@code Foreground} -> {@code foregroundDeletion}, {@code Background}
 * -> neither (the deprecated {@code orphanDependents: true|false} maps to Orphan/Background); without a policy a
 * finalizer already on the object decides, else the default (Background for custom resources). The garbage
 * collector then finishes the job.
 */
public final class GcFinalizers {
  /** The finalizer of orphan propagation. */
  public static final String ORPHAN = "orphan";
  /** The finalizer of foreground propagation. */
  public static final String FOREGROUND = "foregroundDeletion";
  private static final List<String> POLICIES = List.of("Foreground", "Background", "Orphan");

  private GcFinalizers() {
  }

  /**
   * @param current the stored object (not changed)
   * @param options the DeleteOptions body ({@code {}} when none)
   * @return {@code current} itself when its finalizers stay as they are, else a copy with the new finalizers
   * @throws StatusException 422 {@code DeleteOptions.meta.k8s.io "" is invalid: ...} for an unknown policy or both
   *     {@code orphanDependents} and {@code propagationPolicy} set ({@code ValidateDeleteOptions})
   */
  public static JsonObject apply(JsonObject current, JsonObject options) {
    Object orphanDependents = options.getValue("orphanDependents");
    Object policy = options.getValue("propagationPolicy");
    if (orphanDependents != null && policy != null) {
      throw invalid("propagationPolicy: Invalid value: \"" + policy + "\": orphanDependents and "
          + "deletionPropagation cannot be both set");
    }
    if (policy != null && !POLICIES.contains(String.valueOf(policy))) {
      throw invalid("propagationPolicy: Unsupported value: \"" + policy + "\": supported values: \"Foreground\", "
          + "\"Background\", \"Orphan\", \"nil\"");
    }
    JsonArray old = current.getJsonObject("metadata", new JsonObject()).getJsonArray("finalizers", new JsonArray());
    boolean orphan;
    boolean foreground;
    if (orphanDependents instanceof Boolean b) {
      orphan = b;
      foreground = false;
    } else if (policy != null) {
      orphan = "Orphan".equals(policy);
      foreground = "Foreground".equals(policy);
    } else {
      orphan = old.contains(ORPHAN) && firstOf(old) == 0;
      foreground = old.contains(FOREGROUND) && firstOf(old) == 1;
    }
    JsonArray next = new JsonArray();
    for (Object f : old) {
      if (!ORPHAN.equals(f) && !FOREGROUND.equals(f)) {
        next.add(f);
      }
    }
    if (orphan) {
      next.add(ORPHAN);
    }
    if (foreground) {
      next.add(FOREGROUND);
    }
    if (new java.util.HashSet<>(next.getList()).equals(new java.util.HashSet<>(old.getList()))) {
      return current;
    }
    JsonObject out = current.copy();
    if (next.isEmpty()) {
      out.getJsonObject("metadata").remove("finalizers");
    } else {
      out.getJsonObject("metadata").put("finalizers", next);
    }
    return out;
  }

  /** @return 0 when {@code orphan} comes first among the two GC finalizers, 1 for {@code foregroundDeletion}, -1 */
  private static int firstOf(JsonArray finalizers) {
    for (Object f : finalizers) {
      if (ORPHAN.equals(f)) {
        return 0;
      }
      if (FOREGROUND.equals(f)) {
        return 1;
      }
    }
    return -1;
  }

  private static StatusException invalid(String cause) {
    return new StatusException(StatusReason.Invalid, "DeleteOptions.meta.k8s.io \"\" is invalid: " + cause,
        new JsonObject().put("group", "meta.k8s.io").put("kind", "DeleteOptions").put("name", "")
            .put("causes", new JsonArray().add(new JsonObject().put("reason", cause.contains("Unsupported")
                ? "FieldValueNotSupported" : "FieldValueInvalid").put("field", "propagationPolicy")
                .put("message", cause.substring(cause.indexOf(": ") + 2)))));
  }
}
