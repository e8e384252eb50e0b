package io.mvproxy.builtin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.Kinds;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored built-in kinds (descriptions in {@code builtin-kinds.yaml}), each served through crd-source's REST
 * surface with kube-apiserver's storage name (resource prefix: the plural, {@code
 * apiextensions.k8s.io/customresourcedefinitions} for CRDs, so both Event APIs share {@code events}) and discovery
 * priorities ({@code pkg/controlplane/apiserver/aggregator.go}): core {@code v1} 18000/1, {@code events.k8s.io/v1}
 * 17750/15, {@code rbac.authorization.k8s.io/v1} 17000/15, {@code apiextensions.k8s.io/v1} and
 * {@code admissionregistration.k8s.io/v1} 16700/15,
 * {@code coordination.k8s.io/v1} 16500/15; each kind's upstream semantics ({@link KindSemantics}) follow its own
 * strategy. Kinds are keyed by their group-resource ({@code configmaps}, {@code roles.rbac.authorization.k8s.io}),
 * the {@code metadata.name} of their description.
 */
public final class BuiltinKinds {
  private static final List<JsonObject> MANIFESTS = load();

  private BuiltinKinds() {
  }

  /**
   * @param ctx        the node's services
   * @param strategies group-resource to its behaviour (absent: none)
   * @return group-resource to started source, in the file's order
   */
  public static Map<String, CrdApiSource> create(ApiSourceContext ctx, Map<String, ObjectStrategy> strategies) {
    Map<String, CrdApiSource> out = new LinkedHashMap<>();
    for (JsonObject m : MANIFESTS) {
      JsonObject spec = m.getJsonObject("spec");
      String plural = spec.getJsonObject("names").getString("plural");
      String group = spec.getString("group");
      String key = m.getJsonObject("metadata").getString("name");
      int[] prio = switch (group) {
        case "" -> new int[] {18000, 1};
        case "events.k8s.io" -> new int[] {17750, 15};
        case "rbac.authorization.k8s.io" -> new int[] {17000, 15};
        case "apiextensions.k8s.io", "admissionregistration.k8s.io" -> new int[] {16700, 15};
        case "apiregistration.k8s.io" -> new int[] {17800, 15};
        case "coordination.k8s.io" -> new int[] {16500, 15};
        default -> new int[] {1000, 100};
      };
      String storageName = "apiextensions.k8s.io".equals(group) || "apiregistration.k8s.io".equals(group)
          ? group + "/" + plural : plural;
      out.put(key, Kinds.createBuiltIn(m, ctx, storageName, prio[0], prio[1],
          strategies.getOrDefault(key, ObjectStrategy.NONE).then(new KindSemantics(plural))));
    }
    return out;
  }

  /** @param key a built-in group-resource ({@code configmaps}, {@code roles.rbac.authorization.k8s.io}) @return a copy of its description */
  static JsonObject manifest(String key) {
    return MANIFESTS.stream().filter(m -> key.equals(m.getJsonObject("metadata").getString("name")))
        .findFirst().orElseThrow().copy();
  }

  @SuppressWarnings("unchecked")
  private static List<JsonObject> load() {
    try (InputStream in = BuiltinKinds.class.getResourceAsStream("builtin-kinds.yaml")) {
      Map<String, Object> doc = new ObjectMapper(new YAMLFactory()).readValue(in, Map.class);
      return new JsonObject(doc).getJsonArray("kinds").stream().map(o -> (JsonObject) o).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
