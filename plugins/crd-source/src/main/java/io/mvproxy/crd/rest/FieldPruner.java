package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Drops fields the version's structural schema does not declare, as apiextensions-apiserver does
 * ({@code apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go}), and applies the request's
 * {@code fieldValidation}: {@code Strict} -> 400 BadRequest naming the unknown fields, {@code Warn} (the default) ->
 * one {@code Warning} header per field, {@code Ignore} -> silent. Fields under
 * {@code x-kubernetes-preserve-unknown-fields: true} are kept; {@code apiVersion}, {@code kind} and
 * {@code metadata} are kept at the root and in {@code x-kubernetes-embedded-resource} objects; metadata itself is
 * not pruned. A version without a schema prunes nothing.
 */
public final class FieldPruner {
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind", "metadata");

  private FieldPruner() {
  }

  /**
   * Prunes {@code o} in place with the schema of the request's version and applies {@code fieldValidation}.
   *
   * @param req the request (version schema, {@code fieldValidation}, response for warnings)
   * @param o   the object about to be stored
   * @return {@code o}
   * @throws StatusException 400 for unknown fields with {@code fieldValidation=Strict}
   */
  public static JsonObject apply(CrdRequest req, JsonObject o) {
    JsonObject schema = req.version().schema();
    List<String> removed = new ArrayList<>();
    if (schema != null) {
      pruneObject(o, schema, "", removed, true);
    }
    FieldValidation.report(req, removed);
    return o;
  }

  /**
   * @param o       an object value
   * @param schema  its schema
   * @param path    its path ({@code ""} at the root)
   * @param removed collects the paths of dropped fields
   * @param typeMeta true when apiVersion, kind and metadata are kept (root, embedded resources)
   */
  static void pruneObject(JsonObject o, JsonObject schema, String path, List<String> removed, boolean typeMeta) {
    JsonObject props = schema.getValue("properties") instanceof JsonObject p ? p : null;
    Object addl = schema.getValue("additionalProperties");
    boolean preserve = Boolean.TRUE.equals(schema.getValue("x-kubernetes-preserve-unknown-fields"));
    boolean embedded = typeMeta || Boolean.TRUE.equals(schema.getValue("x-kubernetes-embedded-resource"));
    for (String key : new ArrayList<>(o.fieldNames())) {
      String child = path.isEmpty() ? key : path + "." + key;
      if (embedded && TYPE_META.contains(key)) {
        continue;
      }
      if (props != null && props.getValue(key) instanceof JsonObject ps) {
        prune(o.getValue(key), ps, child, removed);
      } else if (addl instanceof JsonObject as) {
        prune(o.getValue(key), as, child, removed);
      } else if (!preserve && !Boolean.TRUE.equals(addl)) {
        o.remove(key);
        removed.add(child);
      }
    }
  }

  private static void prune(Object value, JsonObject schema, String path, List<String> removed) {
    if (value instanceof JsonObject o) {
      pruneObject(o, schema, path, removed, false);
    } else if (value instanceof JsonArray a && schema.getValue("items") instanceof JsonObject items) {
      for (int i = 0; i < a.size(); i++) {
        prune(a.getValue(i), items, path + "[" + i + "]", removed);
      }
    }
  }
}
