package io.mvproxy.registry.impl.conversion;

import io.mvproxy.api.storage.StorageException;
import io.mvproxy.registry.impl.admission.WebhookClient;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Converts custom objects between the versions of one CRD by calling its conversion webhook, as
 * apiextensions-apiserver's {@code pkg/apiserver/conversion/webhook_converter.go}: one {@code ConversionReview}
 * ({@code v1}, or {@code v1beta1} when the CRD lists only that) per call with a new {@code request.uid}, the
 * {@code desiredAPIVersion} and the objects not already in it; the answer is checked as upstream (review kind and
 * uid for v1, {@code result.status} {@code Success}, as many converted objects as sent, each in the desired
 * group-version with the same kind, name, namespace and uid) and each converted object gets the original's
 * metadata back except its {@code labels} and {@code annotations} ({@code restoreObjectMeta}). Calls go through the
 * node's {@link WebhookClient} ({@code caBundle}, {@code url} or {@code service} via {@code --service-resolution})
 * with kube's 30 s deadline. Every failure is a {@code 500 InternalError} {@link StorageException}:
 * {@code Internal error occurred: conversion webhook for <group/version, Kind=Kind> failed: <cause>}.
 */
public final class WebhookConverter {
  /** Deadline of one conversion call, seconds (apiserver's webhook client default, {@code ?timeout=30s}). */
  public static final int TIMEOUT_SECONDS = 30;
  private static final Logger LOG = Logger.getLogger(WebhookConverter.class.getName());
  private final WebhookClient http;
  private final CrdConversion conversion;
  private final String crdName;

  /**
   * @param http       the node's webhook client
   * @param conversion the CRD's {@code spec.conversion} (strategy Webhook)
   * @param crdName    the CRD's name (logs)
   */
  public WebhookConverter(WebhookClient http, CrdConversion conversion, String crdName) {
    this.http = http;
    this.conversion = conversion;
    this.crdName = crdName;
  }

  /** @return the conversion this converter serves */
  public CrdConversion conversion() {
    return conversion;
  }

  /**
   * Converts objects to {@code desiredApiVersion} in one ConversionReview (objects already in it are kept and not
   * sent; none to send: no call).
   *
   * @param objects           objects, each with its {@code apiVersion} and {@code kind} (not changed)
   * @param desiredApiVersion {@code group/version} to convert to
   * @param inGvk             the input's group-version-kind in Go's {@code %v} form, for error texts: the object's
   *                          ({@code g/v1, Kind=Widget}) or the list's ({@code g/v1, Kind=WidgetList})
   * @param list              true when converting a list (upstream's list texts: {@code ... at index N})
   * @return the objects in order, converted; fails with a 500 {@link StorageException}
   */
  public Future<List<JsonObject>> convert(List<JsonObject> objects, String desiredApiVersion, String inGvk,
                                          boolean list) {
    List<Integer> sent = new ArrayList<>();
    JsonArray toSend = new JsonArray();
    for (int i = 0; i < objects.size(); i++) {
      if (!desiredApiVersion.equals(objects.get(i).getString("apiVersion"))) {
        sent.add(i);
        toSend.add(objects.get(i));
      }
    }
    if (sent.isEmpty()) {
      return Future.succeededFuture(new ArrayList<>(objects));
    }
    String reviewVersion = conversion.reviewVersions().stream()
        .filter(CrdConversion.ACCEPTED_REVIEW_VERSIONS::contains).findFirst().orElse(null);
    if (reviewVersion == null) {
      return Future.failedFuture(fail("no supported conversion review versions"));
    }
    String uid = UUID.randomUUID().toString();
    JsonObject review = new JsonObject().put("kind", "ConversionReview")
        .put("apiVersion", "apiextensions.k8s.io/" + reviewVersion)
        .put("request", new JsonObject().put("uid", uid).put("desiredAPIVersion", desiredApiVersion)
            .put("objects", toSend));
    String prefix = "conversion webhook for " + inGvk;
    return http.post(conversion.clientConfig(), TIMEOUT_SECONDS, review).recover(t ->
        Future.failedFuture(fail(prefix + " failed: " + t.getMessage()))).map(body -> {
      JsonArray converted;
      try {
        converted = convertedObjects(body.toJsonObject(), uid, reviewVersion);
      } catch (RuntimeException e) {
        throw fail(prefix + " failed: " + e.getMessage());
      }
      if (converted.size() != sent.size()) {
        throw fail(prefix + " returned " + converted.size() + " objects, expected " + sent.size());
      }
      List<JsonObject> out = new ArrayList<>(objects);
      for (int j = 0; j < sent.size(); j++) {
        JsonObject original = objects.get(sent.get(j));
        Object c = converted.getValue(j);
        // upstream counts list positions from 1 after the item is taken, from 0 for a single object
        String at = list ? " returned invalid converted object at index " + (j + 1) + ": "
            : " returned invalid object at index 0: ";
        if (!(c instanceof JsonObject co)) {
          throw fail(prefix + (list ? " returned invalid converted object at index " + j + ": " : " failed: ")
              + "Object 'Kind' is missing in '" + c + "'");
        }
        String gv = co.getString("apiVersion", "");
        if (!desiredApiVersion.equals(gv)) {
          throw fail(prefix + at + "invalid groupVersion (expected " + desiredApiVersion + ", received " + gv + ")");
        }
        String kind = original.getString("kind", "");
        if (!kind.equals(co.getString("kind", ""))) {
          throw fail(prefix + at + "invalid kind (expected " + kind + ", received " + co.getString("kind", "") + ")");
        }
        String problem = sameIdentity(original, co);
        if (problem != null) {
          throw fail(prefix + (list ? " returned invalid converted object at index " + (j + 1) + ": "
              : " returned invalid object: ") + problem);
        }
        try {
          out.set(sent.get(j), restoreObjectMeta(original, co.copy()));
        } catch (IllegalArgumentException e) {
          throw fail(prefix + (list ? " returned invalid metadata in object at index " + (j + 1) + ": "
              : " returned invalid metadata: ") + e.getMessage());
        }
      }
      return out;
    });
  }

  private StorageException fail(String message) {
    LOG.warning("conversion of " + crdName + ": " + message);
    return StorageException.internal(null, message);
  }

  /** {@code getConvertedObjectsFromResponse}: the review's converted objects, or the reason it failed. */
  static JsonArray convertedObjects(JsonObject answer, String uid, String reviewVersion) {
    if ("v1".equals(reviewVersion)) {
      String gvk = answer.getString("apiVersion", "") + ", Kind=" + answer.getString("kind", "");
      if (!"apiextensions.k8s.io/v1, Kind=ConversionReview".equals(gvk)) {
        throw new IllegalArgumentException("expected webhook response of apiextensions.k8s.io/v1, "
            + "Kind=ConversionReview, got " + gvk);
      }
    }
    if (!(answer.getValue("response") instanceof JsonObject resp)) {
      throw new IllegalArgumentException("no response provided");
    }
    if ("v1".equals(reviewVersion) && !uid.equals(resp.getString("uid", ""))) {
      throw new IllegalArgumentException("expected response.uid=\"" + uid + "\", got \"" + resp.getString("uid", "")
          + "\"");
    }
    JsonObject result = resp.getValue("result") instanceof JsonObject r ? r : new JsonObject();
    String status = result.getString("status", "");
    if (!"Success".equals(status)) {
      String message = result.getString("message", "");
      throw new IllegalArgumentException(!message.isEmpty() ? message
          : "response.result.status was '" + status + "', not 'Success'");
    }
    return resp.getValue("convertedObjects") instanceof JsonArray a ? a : new JsonArray();
  }

  /** {@code validateConvertedObject}: same kind, name, namespace and uid; null when so. */
  static String sameIdentity(JsonObject in, JsonObject out) {
    JsonObject im = in.getJsonObject("metadata", new JsonObject());
    JsonObject om = out.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    for (String[] f : new String[][] {{"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}}) {
      String a = im.getString(f[0], "");
      String b = om.getValue(f[0]) instanceof String s ? s : "";
      if (!a.equals(b)) {
        return "must have the same " + f[1] + ": " + a + " != " + b;
      }
    }
    return null;
  }

  /**
   * {@code restoreObjectMeta}: the original's metadata with the converted object's {@code labels} and
   * {@code annotations} (string values only).
   *
   * @throws IllegalArgumentException upstream's texts for missing or mistyped metadata
   */
  static JsonObject restoreObjectMeta(JsonObject original, JsonObject converted) {
    Object m = converted.getValue("metadata");
    if (m == null) {
      throw new IllegalArgumentException("missing metadata in converted object");
    }
    if (!(m instanceof JsonObject response)) {
      throw new IllegalArgumentException("invalid metadata of type " + goType(m) + " in converted object");
    }
    JsonObject meta = original.getJsonObject("metadata", new JsonObject()).copy();
    for (String fld : new String[] {"labels", "annotations"}) {
      Object v = response.getValue(fld);
      if (v == null) {
        meta.remove(fld);
        continue;
      }
      if (!(v instanceof JsonObject map)) {
        throw new IllegalArgumentException("invalid metadata." + fld + " of type " + goType(v)
            + " in converted object");
      }
      for (Map.Entry<String, Object> e : map) {
        if (!(e.getValue() instanceof String)) {
          throw new IllegalArgumentException("metadata." + fld + "[" + e.getKey() + "] must be a string, but is "
              + goType(e.getValue()) + " in converted object");
        }
      }
      meta.put(fld, map.copy());
    }
    converted.put("metadata", meta);
    return converted;
  }

  private static String goType(Object v) {
    if (v instanceof String) {
      return "string";
    }
    if (v instanceof Boolean) {
      return "bool";
    }
    if (v instanceof Number) {
      return v instanceof Double || v instanceof Float ? "float64" : "int64";
    }
    if (v instanceof JsonArray) {
      return "[]interface {}";
    }
    return v instanceof JsonObject ? "map[string]interface {}" : "<nil>";
  }
}
