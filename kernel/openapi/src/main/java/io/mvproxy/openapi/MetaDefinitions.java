package io.mvproxy.openapi;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Minimal definitions of the built-in types CRD documents reference ({@code ObjectMeta}, {@code ListMeta},
 * {@code Status}, {@code DeleteOptions}, {@code Patch}, {@code WatchEvent}, autoscaling/v1 {@code Scale} and what
 * they reference), from the resource {@code meta-definitions.json}, abridged from the Kubernetes
 * {@code api/openapi-spec}. Every reference inside them resolves among them.
 */
final class MetaDefinitions {
  private static final String RESOURCE = "meta-definitions.json";

  private final String text;

  /**
   * Loads the resource.
   *
   * @throws UncheckedIOException when the resource is missing
   */
  MetaDefinitions() {
    try (InputStream in = MetaDefinitions.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("missing resource " + RESOURCE));
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param v2 true for {@code #/definitions/} references, false for v3 style
   * @return a fresh copy of all definitions keyed by name
   */
  JsonObject all(boolean v2) {
    JsonObject defs = new JsonObject(text);
    return v2 ? defs : (JsonObject) SchemaRefs.toV3(defs);
  }

  /**
   * @param v2    true for v2 style
   * @param names the wanted names; their dependencies are added
   * @return the definitions named and those they (transitively) reference
   */
  JsonObject closure(boolean v2, Set<String> names) {
    JsonObject all = all(true);
    JsonObject out = new JsonObject();
    java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(names);
    while (!todo.isEmpty()) {
      String n = todo.pop();
      if (out.containsKey(n) || !all.containsKey(n)) {
        continue;
      }
      JsonObject def = all.getJsonObject(n);
      out.put(n, def);
      collectRefs(def, todo);
    }
    return v2 ? out : (JsonObject) SchemaRefs.toV3(out);
  }

  private static void collectRefs(Object node, java.util.Deque<String> into) {
    if (node instanceof JsonObject o) {
      if (o.getValue("$ref") instanceof String r && r.startsWith(SchemaRefs.V2_PREFIX)) {
        into.add(r.substring(SchemaRefs.V2_PREFIX.length()));
      }
      o.forEach(e -> collectRefs(e.getValue(), into));
    } else if (node instanceof io.vertx.core.json.JsonArray a) {
      a.forEach(v -> collectRefs(v, into));
    }
  }
}
