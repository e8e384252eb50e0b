package io.mvproxy.registry.impl.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

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

  private GcFinalizers() {
  }

  /**
   * @param current the stored object (not changed)
   * @param options the DeleteOptions, already validated by {@link DeleteOptionsReader} ({@code {}} when none)
   * @return {@code current} itself when its finalizers stay as they are, else a copy with the new finalizers
   */
  public static JsonObject apply(JsonObject current, JsonObject options) {
    Object orphanDependents = options.getValue("orphanDependents");
    Object policy = options.getValue("propagationPolicy");
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
}
