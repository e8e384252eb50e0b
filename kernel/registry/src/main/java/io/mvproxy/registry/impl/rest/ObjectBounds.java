package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Limits checked on every object before it is stored, so that no stored object can break a later read (JSON,
 * Table, watch, proxied): nesting depth at most {@value #MAX_DEPTH} levels (the object itself is level 1; a deeper
 * object gets {@code 422 Invalid} naming the field where the limit is crossed; {@code metadata.managedFields} may go
 * {@value #MANAGED_FIELDS_EXTRA_DEPTH} levels deeper) and an encoded size of at most
 * {@value #MAX_OBJECT_BYTES} bytes ({@code 413 RequestEntityTooLarge}). kube-apiserver's counterparts: Go's JSON
 * decoder stops at 10000 levels, and etcd refuses values over its {@code --max-request-bytes} (1.5 MiB) with
 * {@code etcdserver: request is too large}. Request bodies are parsed to at most {@value #MAX_PARSE_DEPTH} levels
 * (400 beyond; Jackson's default), which leaves the answers that wrap an object (lists, Tables, watch events,
 * managedFields) well inside the JSON writer's own 1000 levels.
 */
public final class ObjectBounds {
  /** Deepest nesting of a stored object, levels. */
  public static final int MAX_DEPTH = 512;
  /**
   * Extra levels allowed under {@code metadata.managedFields}: its FieldsV1 sets mirror the object's fields four
   * levels down (managedFields, entry, fieldsV1, then {@code f:spec}...) and a scalar leaf is an empty object there
   * ({@code "f:v": {}}), so the deepest allowed object's own entry fits.
   */
  public static final int MANAGED_FIELDS_EXTRA_DEPTH = 5;
  /** Deepest nesting of a request body the decoder reads, levels. */
  public static final int MAX_PARSE_DEPTH = 1000;
  /** Largest encoded stored object, bytes (etcd's default --max-request-bytes, 1.5 MiB). */
  public static final int MAX_OBJECT_BYTES = 1536 * 1024;

  private ObjectBounds() {
  }

  /**
   * @param req the request (for the Invalid Status)
   * @param o   the object about to be stored
   * @return {@code o}
   * @throws StatusException 422 when nested deeper than {@link #MAX_DEPTH}, 413 when larger than
   *     {@link #MAX_OBJECT_BYTES} encoded
   */
  public static JsonObject check(CrdRequest req, JsonObject o) {
    String deep = tooDeep(o);
    if (deep != null) {
      String name = o.getJsonObject("metadata", new JsonObject()).getString("name", req.name());
      throw StatusException.invalid(req.gvr(), req.crd().kind(), name, new JsonArray().add(new JsonObject()
          .put("reason", "FieldValueTooLong").put("field", deep)
          .put("message", "Too long: must have at most " + MAX_DEPTH + " levels of nesting")));
    }
    int size = o.toBuffer().length();
    if (size > MAX_OBJECT_BYTES) {
      throw new StatusException(io.mvproxy.api.StatusReason.RequestEntityTooLarge,
          "Request entity too large: the object is " + size + " bytes encoded, more than the limit of "
              + MAX_OBJECT_BYTES, null);
    }
    return o;
  }

  /** @return the shortest path of a value at level {@code MAX_DEPTH + 1}, or null when the object is within bounds */
  static String tooDeep(JsonObject root) {
    record Item(Object value, int depth, String path, int limit) {
    }
    Deque<Item> todo = new ArrayDeque<>();
    todo.push(new Item(root, 1, "", MAX_DEPTH));
    while (!todo.isEmpty()) {
      Item it = todo.pop();
      if (it.depth() > it.limit()) {
        return it.path();
      }
      if (it.value() instanceof JsonObject jo) {
        jo.forEach(e -> {
          if (e.getValue() instanceof JsonObject || e.getValue() instanceof JsonArray) {
            String path = it.path().isEmpty() ? e.getKey() : it.path() + "." + e.getKey();
            todo.push(new Item(e.getValue(), it.depth() + 1, path,
                path.equals("metadata.managedFields") ? MAX_DEPTH + MANAGED_FIELDS_EXTRA_DEPTH : it.limit()));
          }
        });
      } else if (it.value() instanceof JsonArray ja) {
        for (int i = 0; i < ja.size(); i++) {
          Object v = ja.getValue(i);
          if (v instanceof JsonObject || v instanceof JsonArray) {
            todo.push(new Item(v, it.depth() + 1, it.path() + "[" + i + "]", it.limit()));
          }
        }
      }
    }
    return null;
  }
}
