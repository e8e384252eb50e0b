package io.mvproxy.builtin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.crd.CrdApiSource;
import io.mvproxy.crd.CrdApiSourceFactory;
import io.mvproxy.crd.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored built-in kinds (descriptions in {@code builtin-kinds.yaml}), each served through crd-source's REST
 * surface with kube-apiserver's storage name (resource prefix) and discovery priorities: core {@code v1} 18000/1,
 * {@code rbac.authorization.k8s.io/v1} 17000/15, {@code coordination.k8s.io/v1} 16500/15; each kind's upstream
 * semantics ({@link KindSemantics}) follow its own strategy.
 */
public final class BuiltinKinds {
  private static final List<JsonObject> MANIFESTS = load();

  private BuiltinKinds() {
  }

  /**
   * @param ctx        the node's services
   * @param strategies plural to its behaviour (absent: none)
   * @return plural to started source, in the file's order
   */
  public static Map<String, CrdApiSource> create(ApiSourceContext ctx, Map<String, ObjectStrategy> strategies) {
    CrdApiSourceFactory factory = new CrdApiSourceFactory();
    Map<String, CrdApiSource> out = new LinkedHashMap<>();
    for (JsonObject m : MANIFESTS) {
      JsonObject spec = m.getJsonObject("spec");
      String plural = spec.getJsonObject("names").getString("plural");
      String group = spec.getString("group");
      int[] prio = switch (group) {
        case "" -> new int[] {18000, 1};
        case "rbac.authorization.k8s.io" -> new int[] {17000, 15};
        case "coordination.k8s.io" -> new int[] {16500, 15};
        default -> new int[] {1000, 100};
      };
      out.put(plural, factory.createBuiltIn(m, ctx, plural, prio[0], prio[1],
          strategies.getOrDefault(plural, ObjectStrategy.NONE).then(new KindSemantics(plural))));
    }
    return out;
  }

  /** @param plural a built-in resource @return a copy of its description */
  static JsonObject manifest(String plural) {
    return MANIFESTS.stream().filter(m -> plural.equals(m.getJsonObject("spec").getJsonObject("names")
        .getString("plural"))).findFirst().orElseThrow().copy();
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
