package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Drops fields a structural schema does not declare, as apiextensions-apiserver
 * {@code pkg/apiserver/schema/pruning/algorithm.go PruneWithOptions} (the object root and
 * {@code x-kubernetes-embedded-resource} objects keep {@code apiVersion}, {@code kind}, {@code metadata};
 * {@code x-kubernetes-preserve-unknown-fields} keeps unknown fields but prunes inside declared ones), then
 * {@code schemaobjectmeta} drops unknown {@code metadata} fields and
 * {@code defaulting/prunenulls.go PruneNonNullableNullsWithoutDefaults} drops nulls a non-nullable field without
 * default may not hold. The dropped paths ({@code spec.foo}, {@code spec.items[0].bar}, {@code metadata.foo}) are
 * what {@code fieldValidation=Strict|Warn} reports as unknown fields.
 */
public final class Pruner {
  /** The fields of {@code ObjectMeta} (apimachinery {@code pkg/apis/meta/v1/types.go}). */
  public static final Set<String> OBJECT_META_FIELDS = Set.of("name", "generateName", "namespace", "selfLink", "uid",
      "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
      "labels", "annotations", "ownerReferences", "finalizers", "managedFields");
  /** The fields of {@code OwnerReference} (ibid.). */
  public static final Set<String> OWNER_REFERENCE_FIELDS = Set.of("apiVersion", "kind", "name", "uid", "controller",
      "blockOwnerDeletion");
  private static final Set<String> META = Set.of("apiVersion", "kind", "metadata");

  private Pruner() {
  }

  /**
   * Prunes an object root in place.
   *
   * @param obj    the object (changed)
   * @param schema its version's schema
   * @return the unknown field paths: metadata ones first, then the others sorted
   */
  public static List<String> prune(JsonObject obj, SchemaNode schema) {
    List<String> meta = new ArrayList<>();
    if (obj.getValue("metadata") instanceof JsonObject m) {
      pruneMeta(m, "metadata", meta);
    }
    List<String> unknown = new ArrayList<>();
    if (schema != null && schema.preserveUnknownFields) {
      skipPrune(obj, schema, "", unknown, true);
    } else {
      pruneMap(obj, schema, "", unknown, true);
    }
    Collections.sort(unknown);
    pruneNulls(obj, schema);
    meta.addAll(unknown);
    return meta;
  }

  /**
   * Prunes a value below the root in place (a {@code default}, checked at CRD load).
   *
   * @param x the value (changed)
   * @param s its schema
   * @return the dropped paths, relative to the value
   */
  public static List<String> pruneValue(Object x, SchemaNode s) {
    List<String> out = new ArrayList<>();
    prune(x, s, "", out);
    return out;
  }

  private static void pruneMeta(JsonObject m, String path, List<String> out) {
    for (String k : new ArrayList<>(m.fieldNames())) {
      if (!OBJECT_META_FIELDS.contains(k)) {
        m.remove(k);
        out.add(path + "." + k);
      }
    }
    if (m.getValue("ownerReferences") instanceof JsonArray refs) {
      for (int i = 0; i < refs.size(); i++) {
        if (refs.getValue(i) instanceof JsonObject ref) {
          for (String k : new ArrayList<>(ref.fieldNames())) {
            if (!OWNER_REFERENCE_FIELDS.contains(k)) {
              ref.remove(k);
              out.add(path + ".ownerReferences[" + i + "]." + k);
            }
          }
        }
      }
    }
  }

  private static void prune(Object x, SchemaNode s, String path, List<String> out) {
    if (s != null && s.preserveUnknownFields) {
      skipPrune(x, s, path, out, false);
      return;
    }
    if (x instanceof JsonObject o) {
      pruneMap(o, s, path, out, false);
    } else if (x instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        prune(a.getValue(i), s == null ? null : s.items, path + "[" + i + "]", out);
      }
    }
  }

  private static void pruneMap(JsonObject o, SchemaNode s, String path, List<String> out, boolean root) {
    if (s == null) {
      for (String k : new ArrayList<>(o.fieldNames())) {
        out.add(join(path, k));
        o.remove(k);
      }
      return;
    }
    boolean embedded = root || s.embeddedResource;
    for (String k : new ArrayList<>(o.fieldNames())) {
      if (embedded && META.contains(k)) {
        if (!root && "metadata".equals(k) && o.getValue(k) instanceof JsonObject m) {
          pruneMeta(m, join(path, k), out);
        }
        continue;
      }
      SchemaNode p = s.properties != null ? s.properties.get(k) : null;
      if (p != null) {
        prune(o.getValue(k), p, join(path, k), out);
      } else if (s.additionalProperties != null) {
        prune(o.getValue(k), s.additionalProperties, join(path, k), out);
      } else {
        if (!META.contains(k) || !path.isEmpty()) {
          out.add(join(path, k));
        }
        o.remove(k);
      }
    }
  }

  private static void skipPrune(Object x, SchemaNode s, String path, List<String> out, boolean root) {
    if (s == null) {
      return;
    }
    if (x instanceof JsonObject o) {
      for (String k : new ArrayList<>(o.fieldNames())) {
        if ((root || s.embeddedResource) && META.contains(k)) {
          continue;
        }
        SchemaNode p = s.properties != null ? s.properties.get(k) : null;
        if (p != null) {
          prune(o.getValue(k), p, join(path, k), out);
        } else if (s.additionalProperties != null) {
          prune(o.getValue(k), s.additionalProperties, join(path, k), out);
        }
      }
    } else if (x instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        skipPrune(a.getValue(i), s.items, path + "[" + i + "]", out, false);
      }
    }
  }

  /**
   * Drops the nulls of fields whose schema is non-nullable without a default. Only a null under a field with a schema
   * is dropped, so a value without schema ({@code s} null: unknown or preserved fields) is left as it is, whole.
   */
  private static void pruneNulls(Object x, SchemaNode s) {
    if (s == null) {
      return;
    }
    if (x instanceof JsonObject o) {
      for (Iterator<Map.Entry<String, Object>> it = o.iterator(); it.hasNext(); ) {
        Map.Entry<String, Object> e = it.next();
        SchemaNode c = s.child(e.getKey());
        Object v = e.getValue();
        if (v == null) {
          if (c != null && !c.nullable && !(c.hasDefault && c.defaultValue != null)) {
            it.remove();
          }
        } else {
          pruneNulls(v, c);
        }
      }
    } else if (x instanceof JsonArray a && s.items != null) {
      for (Object v : a) {
        pruneNulls(v, s.items);
      }
    }
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
