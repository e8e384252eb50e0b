package io.mvproxy.authorization;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * {@code metav1.LabelSelector} matching ({@code matchLabels} and {@code matchExpressions} with {@code In},
 * {@code NotIn}, {@code Exists}, {@code DoesNotExist}), used by ClusterRole aggregation.
 */
final class LabelSelectors {
  private LabelSelectors() {
  }

  /**
   * @param selector a LabelSelector object; an empty selector matches everything (as labels.Everything())
   * @param labels   the object's labels
   * @return true when every requirement holds
   */
  static boolean matches(JsonObject selector, Map<String, String> labels) {
    JsonObject ml = selector.getJsonObject("matchLabels");
    if (ml != null) {
      for (String k : ml.fieldNames()) {
        if (!String.valueOf(ml.getValue(k)).equals(labels.get(k))) {
          return false;
        }
      }
    }
    JsonArray exprs = selector.getJsonArray("matchExpressions");
    if (exprs != null) {
      for (Object o : exprs) {
        if (!(o instanceof JsonObject e)) {
          return false;
        }
        String key = e.getString("key", "");
        JsonArray values = e.getJsonArray("values", new JsonArray());
        String v = labels.get(key);
        switch (e.getString("operator", "")) {
          case "In": if (v == null || !values.contains(v)) { return false; } break;
          case "NotIn": if (v != null && values.contains(v)) { return false; } break;
          case "Exists": if (v == null) { return false; } break;
          case "DoesNotExist": if (v != null) { return false; } break;
          default: return false;
        }
      }
    }
    return true;
  }
}
