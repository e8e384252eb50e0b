package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.model.ScaleSpec;
import io.vertx.core.json.JsonObject;

/**
 * Converts between a custom object and its {@code autoscaling/v1 Scale}
 * ({@code apiextensions-apiserver/pkg/registry/customresource/etcd.go scaleFromCustomResource}).
 */
public final class ScaleCodec {
  private ScaleCodec() {
  }

  /**
   * @param o    the custom object
   * @param spec the CRD version's scale paths
   * @return the Scale: metadata (name, namespace, uid, resourceVersion, creationTimestamp), spec.replicas,
   *     status.replicas, status.selector
   */
  public static JsonObject toScale(JsonObject o, ScaleSpec spec) {
    JsonObject m = o.getJsonObject("metadata", new JsonObject());
    JsonObject meta = new JsonObject();
    for (String k : new String[] {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
      if (m.containsKey(k)) {
        meta.put(k, m.getValue(k));
      }
    }
    Object specReplicas = JsonPaths.get(o, spec.specReplicasPath());
    Object statusReplicas = JsonPaths.get(o, spec.statusReplicasPath());
    JsonObject status = new JsonObject().put("replicas", statusReplicas instanceof Number n ? n.intValue() : 0);
    if (spec.labelSelectorPath() != null && JsonPaths.get(o, spec.labelSelectorPath()) instanceof String sel) {
      status.put("selector", sel);
    }
    return new JsonObject().put("kind", "Scale").put("apiVersion", "autoscaling/v1").put("metadata", meta)
        .put("spec", new JsonObject().put("replicas", specReplicas instanceof Number n ? n.intValue() : 0))
        .put("status", status);
  }

  /**
   * @param old   the stored object
   * @param scale the Scale sent by the client
   * @param spec  the scale paths
   * @return a copy of {@code old} with the desired replicas set
   * @throws StatusException 422 when {@code spec.replicas} is negative ({@code ValidateScale}; absent is 0); 400
   *     when it is no int32 (the typed Scale's decoding error)
   */
  public static JsonObject applyScale(CrdRequest req, JsonObject old, JsonObject scale, ScaleSpec spec) {
    Object r = scale.getValue("spec") instanceof JsonObject s ? s.getValue("replicas") : null;
    long replicas;
    if (r == null) {
      replicas = 0;  // ScaleSpec.Replicas is an int32 with omitempty: absent is 0
    } else if ((r instanceof Integer || r instanceof Long)
        && ((Number) r).longValue() == (int) ((Number) r).longValue()) {
      replicas = ((Number) r).longValue();
    } else {
      // the typed Scale's decoding: a fraction, a number beyond int32 (named with its value) or another JSON type
      String got = r instanceof Number ? "number " + r : ObjectRules.typeName(r);
      throw StatusException.badRequest("Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal "
          + got + " into Go struct field ScaleSpec.spec.replicas of type int32");
    }
    if (replicas < 0) {
      // validation.ValidateScale
      throw StatusException.invalid(req.gvr(), "Scale", req.name(), new io.vertx.core.json.JsonArray().add(
          new JsonObject().put("reason", "FieldValueInvalid").put("field", "spec.replicas")
              .put("message", "Invalid value: " + replicas + ": must be greater than or equal to 0")));
    }
    JsonObject out = old.copy();
    JsonPaths.set(out, spec.specReplicasPath(), replicas);
    return out;
  }
}
