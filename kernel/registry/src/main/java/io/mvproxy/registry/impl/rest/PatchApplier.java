package io.mvproxy.registry.impl.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.flipkart.zjsonpatch.JsonPatch;
import com.flipkart.zjsonpatch.JsonPatchApplicationException;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Applies patch documents to an object (apiserver {@code pkg/endpoints/handlers/patch.go}): RFC 7386 JSON merge
 * patch, RFC 6902 JSON patch as {@code evanphx/json-patch.v4} applies it (zjsonpatch with {@link #JSON_PATCH_V4}; an
 * operation that does not apply gives 422, a patch that is not a list 400), strategic merge patch for
 * kinds with struct tags ({@link StrategicMergePatch}; built-in kinds only, as upstream), and the apply
 * configuration of server-side apply (YAML or JSON, merged like a merge patch).
 */
public final class PatchApplier {
  /** The patch types custom resources accept. */
  public enum Type {
    /** {@code application/json-patch+json}. */
    JSON,
    /** {@code application/merge-patch+json}. */
    MERGE,
    /** {@code application/apply-patch+yaml}. */
    APPLY,
    /** {@code application/strategic-merge-patch+json} (kinds with {@link PatchMeta} only). */
    STRATEGIC
  }

  /**
   * zjsonpatch's flags for the semantics of {@code gopkg.in/evanphx/json-patch.v4}, which kube-apiserver applies JSON
   * patches with: {@code replace} of an absent key of an existing object sets it ({@code partialDoc.get} finds no
   * error), {@code remove} of an absent key fails ({@code Unable to remove nonexistent key}).
   */
  private static final java.util.EnumSet<com.flipkart.zjsonpatch.CompatibilityFlags> JSON_PATCH_V4 =
      java.util.EnumSet.of(com.flipkart.zjsonpatch.CompatibilityFlags.ALLOW_MISSING_TARGET_OBJECT_ON_REPLACE,
          com.flipkart.zjsonpatch.CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT);

  /** Most operations in one JSON patch (apiserver {@code patch.go maxJSONPatchOperations}); 413 beyond. */
  public static final int MAX_JSON_PATCH_OPERATIONS = 10000;
  private final ObjectMapper json = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /** The fields of patch.go's {@code jsonPatchOp}; strict decoding names any other one. */
  private static final java.util.Set<String> JSON_PATCH_OP_FIELDS = java.util.Set.of("op", "path", "from", "value");

  /**
   * The strict decoding problems of a patch body, as patch.go finds them with {@code kjson.UnmarshalStrict}
   * (fieldValidation Warn or Strict): for a JSON patch ({@code applyJSPatch}, into {@code []jsonPatchOp}) an
   * operation's unknown fields and duplicate fields, each prefixed {@code json patch }; for a merge patch
   * ({@code applyJSPatch}) and a strategic merge patch ({@code strategicPatchObject}), into a map, duplicate fields.
   * Paths as sigs.k8s.io/json writes them ({@code [0].foo}, {@code spec.a}), Go-quoted.
   *
   * @param type  JSON, MERGE or STRATEGIC (APPLY: none)
   * @param patch the patch body
   * @return {@code json patch unknown field "[0].foo"}, {@code duplicate field "spec.a"}, ...; empty when there are
   *     none or the body does not decode (its error is {@link #apply}'s)
   */
  public static List<String> strictProblems(Type type, Buffer patch) {
    if (type != Type.JSON && type != Type.MERGE && type != Type.STRATEGIC) {
      return List.of();
    }
    List<String> dups = new java.util.ArrayList<>();
    Object p;
    try {
      p = StrictJson.decode(patch, dups);
    } catch (RuntimeException e) {
      return List.of();
    }
    java.util.function.UnaryOperator<String> quote = io.mvproxy.registry.impl.schema.GoValues::quote;
    if (type != Type.JSON) {  // merge and strategic merge patches: kjson.UnmarshalStrict into a map
      return p instanceof JsonObject ? dups.stream().map(d -> "duplicate field " + quote.apply(d)).toList() : List.of();
    }
    if (!(p instanceof io.vertx.core.json.JsonArray ops)) {
      return List.of();
    }
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      if (!(ops.getValue(i) instanceof JsonObject op)) {
        continue;
      }
      String at = "[" + i + "]";
      for (String f : op.fieldNames()) {
        if (!JSON_PATCH_OP_FIELDS.contains(f)) {
          out.add("json patch unknown field " + quote.apply(at + "." + f));
        }
      }
      for (String d : dups) {
        if (d.startsWith(at + ".") || d.startsWith(at + "[")) {
          out.add("json patch duplicate field " + quote.apply(d));
        }
      }
    }
    return out;
  }

  /**
   * @param contentType the request Content-Type (parameters ignored)
   * @return the patch type
   * @throws StatusException 415 for strategic merge patch and anything else
   */
  public static Type type(String contentType) {
    return type(contentType, null);
  }

  /**
   * @param contentType the request Content-Type (parameters ignored)
   * @param strategic   the kind's strategic-merge-patch metadata, or null when the kind has none (custom resources)
   * @return the patch type
   * @throws StatusException 415 for strategic merge patch without metadata and for anything else, listing the
   *     accepted types as kube-apiserver's patch handler does
   */
  public static Type type(String contentType, PatchMeta strategic) {
    String ct = contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase();
    if (strategic != null && "application/strategic-merge-patch+json".equals(ct)) {
      return Type.STRATEGIC;
    }
    switch (ct) {
      case "application/json-patch+json":
        return Type.JSON;
      case "application/merge-patch+json":
        return Type.MERGE;
      case "application/apply-patch+yaml":
      case "application/apply-patch+cbor":
        return Type.APPLY;
      default:
        throw new StatusException(StatusReason.UnsupportedMediaType, "the body of the request was in an unknown "
            + "format - accepted media types include: application/json-patch+json, application/merge-patch+json, "
            + (strategic != null ? "application/strategic-merge-patch+json, " : "") + "application/apply-patch+yaml",
            null);
    }
  }

  /**
   * @param body an apply configuration (YAML or JSON)
   * @return it as a JSON object
   * @throws StatusException 400 when it is not a YAML mapping
   */
  public JsonObject applyConfiguration(Buffer body) {
    try {
      List<Object> docs = io.mvproxy.registry.impl.YamlDocuments.read(new java.io.ByteArrayInputStream(body.getBytes()),
          io.mvproxy.registry.impl.YamlDocuments.Limits.REQUEST);
      if (docs.size() == 1 && docs.get(0) instanceof JsonObject o) {
        return o;
      }
    } catch (IllegalArgumentException e) {
      throw StatusException.badRequest("error decoding YAML: " + e.getMessage());
    }
    throw StatusException.badRequest("error decoding YAML: the apply configuration is not an object");
  }

  /**
   * An apply configuration for an endpoint of {@code apiVersion} and {@code kind}, checked as kube-apiserver's field
   * manager checks it before merging ({@code managedfields/internal/versioncheck.go}, then
   * {@code structuredmerge.go Apply}): without the endpoint's group, version and kind it would be merged as another
   * version's fields.
   *
   * @param body       an apply configuration (YAML or JSON)
   * @param apiVersion the endpoint's {@code group/version} ({@code v1} for the core group)
   * @param kind       the endpoint's kind
   * @return the configuration as a JSON object
   * @throws StatusException 400 {@code error decoding YAML: ...}; 400 {@code invalid object type: <group>/<version>,
   *     Kind=<kind>} naming what the configuration gives (empty when absent, not a string, or an unparsable
   *     apiVersion: {@code /, Kind=}); 400 {@code metadata.managedFields must be nil} when it carries a list of
   *     entries ({@code Unstructured.GetManagedFields} non-nil; {@code null} or another type passes)
   */
  public JsonObject applyConfiguration(Buffer body, String apiVersion, String kind) {
    JsonObject config = applyConfiguration(body);
    String[] gv = groupVersion(config.getValue("apiVersion") instanceof String s ? s : "");
    String[] want = groupVersion(apiVersion);
    // Unstructured.GroupVersionKind: an unparsable apiVersion gives the empty GroupVersionKind, kind included
    String k = gv == null ? "" : config.getValue("kind") instanceof String s ? s : "";
    if (gv == null) {
      gv = new String[] {"", ""};
    }
    if (!gv[0].equals(want[0]) || !gv[1].equals(want[1]) || !k.equals(kind)) {
      throw StatusException.badRequest("invalid object type: " + gv[0] + "/" + gv[1] + ", Kind=" + k);
    }
    if (config.getValue("metadata") instanceof JsonObject meta && meta.getValue("managedFields") instanceof
        io.vertx.core.json.JsonArray entries && entries.stream().allMatch(PatchApplier::managedFieldsEntry)) {
      throw StatusException.badRequest("metadata.managedFields must be nil");
    }
    return config;
  }

  /**
   * @return true when {@code e} converts to a {@code metav1.ManagedFieldsEntry} ({@code Unstructured.GetManagedFields}
   *     reads the list as nil when an item does not): an object whose known fields, when set, have their types
   */
  private static boolean managedFieldsEntry(Object e) {
    if (!(e instanceof JsonObject o)) {
      return false;
    }
    for (String f : new String[] {"manager", "operation", "apiVersion", "time", "fieldsType", "subresource"}) {
      if (o.getValue(f) != null && !(o.getValue(f) instanceof String)) {
        return false;
      }
    }
    return o.getValue("fieldsV1") == null || o.getValue("fieldsV1") instanceof JsonObject;
  }

  /**
   * {@code schema.ParseGroupVersion}: {group, version}; both empty for {@code ""} or {@code "/"}; null (an error)
   * for more than one slash.
   */
  static String[] groupVersion(String apiVersion) {
    if (apiVersion.isEmpty() || "/".equals(apiVersion)) {
      return new String[] {"", ""};
    }
    int slash = apiVersion.indexOf('/');
    if (slash < 0) {
      return new String[] {"", apiVersion};
    }
    if (apiVersion.indexOf('/', slash + 1) >= 0) {
      return null;
    }
    return new String[] {apiVersion.substring(0, slash), apiVersion.substring(slash + 1)};
  }

  /**
   * @param type   JSON or MERGE (APPLY is a merge of {@link #applyConfiguration})
   * @param target the object to patch (not changed)
   * @param patch  the patch body
   * @return the patched object
   * @throws StatusException 400 for an unparsable patch, 422 when it cannot be applied
   */
  public JsonObject apply(Type type, JsonObject target, Buffer patch) {
    return apply(type, target, patch, PatchMeta.NONE);
  }

  /**
   * @param type      any patch type (APPLY is a merge of {@link #applyConfiguration})
   * @param target    the object to patch (not changed)
   * @param patch     the patch body
   * @param strategic the kind's strategic-merge-patch metadata (for STRATEGIC)
   * @return the patched object
   * @throws StatusException 400 for an unparsable patch, 422 when it cannot be applied, 500 for the strategic merge
   *     patch errors kube-apiserver answers so
   */
  public JsonObject apply(Type type, JsonObject target, Buffer patch, PatchMeta strategic) {
    return apply(type, target, patch, strategic, true);
  }

  /**
   * @param strictDecoding true with {@code fieldValidation} Warn (the default) or Strict: patch.go first decodes a
   *                       JSON patch with {@code kjson.UnmarshalStrict} into {@code []jsonPatchOp}, whose errors are
   *                       {@code 400 error decoding patch: ...}; false with Ignore: only json-patch's own decoding
   *                       ({@code jsonpatch.DecodePatch}: a bare {@code 400} naming {@code jsonpatch.Patch} or
   *                       {@code jsonpatch.Operation}; an operation field of the wrong type makes the operation
   *                       unknown, the {@code 422} of one that does not apply)
   * @see #apply(Type, JsonObject, Buffer, PatchMeta)
   */
  public JsonObject apply(Type type, JsonObject target, Buffer patch, PatchMeta strategic, boolean strictDecoding) {
    if (type == Type.STRATEGIC) {
      return StrategicMergePatch.apply(target, patch, strategic);
    }
    if (type == Type.APPLY) {
      return merge(target, applyConfiguration(patch));
    }
    if (type == Type.MERGE) {
      Object p;
      try {
        p = StrictJson.decode(patch, null);
      } catch (RuntimeException e) {
        // patch.go, fieldValidation Warn (the default) or Strict: "error decoding patch: " and kjson's (Go's) text
        throw StatusException.badRequest("error decoding patch: " + GoJsonSyntax.syntaxErrorOr(patch.getBytes(),
            e.getMessage()));
      }
      if (p == null) {
        throw StatusException.badRequest("Invalid JSON Patch");  // json-patch MergePatch: ErrBadJSONPatch
      }
      if (!(p instanceof JsonObject po)) {
        // kjson.UnmarshalStrict into map[string]any (fieldValidation Warn, the default, or Strict)
        throw StatusException.badRequest("error decoding patch: json: cannot unmarshal " + StrategicMergePatch
            .jsonKind(p) + " into Go value of type map[string]interface {}");
      }
      return (JsonObject) mergeValue(target.copy(), po);
    }
    byte[] bytes = patch.getBytes();
    String prefix = strictDecoding ? "error decoding patch: " : "";
    String syntax = GoJsonSyntax.syntaxError(bytes);
    if (syntax != null) {
      throw StatusException.badRequest(prefix + syntax);
    }
    JsonNode p;
    try {
      p = json.readTree(GoJsonSyntax.replaceInvalidUtf8(bytes));
      StrictJson.requireFinite(p);
    } catch (IOException | IllegalArgumentException e) {
      throw StatusException.badRequest(prefix + GoJsonSyntax.syntaxErrorOr(patch.getBytes(), e.getMessage()));
    }
    if (p != null && p.isArray() && p.size() > MAX_JSON_PATCH_OPERATIONS) {
      throw new StatusException(
          StatusReason.RequestEntityTooLarge, "Request entity too large: The allowed maximum operations in a JSON "
          + "patch is " + MAX_JSON_PATCH_OPERATIONS + ", got " + p.size(), null);
    }
    if (p == null || p.isNull()) {
      return target.copy();  // jsonpatch.DecodePatch("null"): a patch without operations
    }
    // kjson.UnmarshalStrict into []jsonPatchOp (patch.go, fieldValidation Warn, the default, or Strict)
    if (!p.isArray()) {
      throw StatusException.badRequest(prefix + "json: cannot unmarshal " + goType(p) + " into Go value of type "
          + (strictDecoding ? "[]handlers.jsonPatchOp" : "jsonpatch.Patch"));
    }
    boolean nullOp = false;
    for (JsonNode op : p) {
      if (op.isNull()) {
        nullOp = true;  // decodes as the zero jsonPatchOp; applying it fails below
        continue;
      }
      if (!op.isObject()) {
        throw StatusException.badRequest(prefix + "json: cannot unmarshal " + goType(op) + " into Go value of type "
            + (strictDecoding ? "handlers.jsonPatchOp" : "jsonpatch.Operation"));
      }
      var fields = op.fields();
      while (fields.hasNext()) {
        var f = fields.next();
        if (JSON_PATCH_OP_FIELDS.contains(f.getKey()) && !"value".equals(f.getKey())
            && !f.getValue().isTextual() && !f.getValue().isNull()) {
          if (!strictDecoding) {
            nullOp = true;  // json-patch reads the field as missing: the operation does not apply
            continue;
          }
          throw StatusException.badRequest(prefix + "json: cannot unmarshal " + goType(f.getValue())
              + " into Go struct field jsonPatchOp." + f.getKey() + " of type string");
        }
      }
    }
    if (nullOp) {
      // json-patch's Apply of a zero operation: "Unexpected kind: unknown", patch.go's 422 without detail
      throw new StatusException(StatusReason.Invalid, "the server rejected our request due to an error in our "
          + "request", new JsonObject());
    }
    try {
      JsonNode out = JsonPatch.apply(p, json.readTree(target.encode()), JSON_PATCH_V4);
      return new JsonObject(json.writeValueAsString(out));
    } catch (JsonPatchApplicationException | IllegalArgumentException | IllegalStateException e) {
      // an operation that does not apply (a failed test, a missing path, an unknown op, an array index zjsonpatch
      // cannot read): patch.go answers NewGenericServerResponse(422, ...) without the server message
      throw new StatusException(StatusReason.Invalid, "the server rejected our request due to an error in our "
          + "request", new JsonObject());
    } catch (IOException e) {
      throw StatusException.badRequest(e.getMessage());
    }
  }

  /** @return the JSON type of {@code n} as Go's {@code UnmarshalTypeError} names it */
  private static String goType(JsonNode n) {
    return n.isObject() ? "object" : n.isArray() ? "array" : n.isTextual() ? "string" : n.isBoolean() ? "bool"
        : "number";
  }

  /** @return {@code patch} merged into a copy of {@code target} per RFC 7386 */
  public static JsonObject merge(JsonObject target, JsonObject patch) {
    return (JsonObject) mergeValue(target.copy(), patch);
  }

  private static Object mergeValue(Object target, Object patch) {
    if (!(patch instanceof JsonObject p)) {
      return patch;
    }
    JsonObject t = target instanceof JsonObject to ? to : new JsonObject();
    for (Map.Entry<String, Object> e : p) {
      if (e.getValue() == null) {
        t.remove(e.getKey());
      } else {
        t.put(e.getKey(), mergeValue(t.getValue(e.getKey()), e.getValue()));
      }
    }
    return t;
  }
}
