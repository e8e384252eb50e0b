package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Table cells of the built-in kinds that kube-apiserver's printers compute ({@code
 * pkg/printers/internalversion/printers.go}; columns in {@code builtin-kinds.yaml}): ConfigMap {@code Data}
 * (keys of {@code data} + {@code binaryData}), Secret {@code Data} (keys of {@code data}), ServiceAccount
 * {@code Secrets} (entries of {@code secrets}), RoleBinding / ClusterRoleBinding {@code Role} ({@code Kind/name})
 * and the wide {@code Users}, {@code Groups}, {@code ServiceAccounts} ({@code namespace/name}) lists, and the
 * {@code Created At} column of kinds without a printer (roles, clusterroles, CRDs: RFC 3339, from
 * {@code apiserver/pkg/registry/rest/table.go}).
 */
final class Printers {
  private Printers() {
  }

  /** @return ConfigMap cells */
  static ObjectStrategy configMaps() {
    return cell("Data", o -> (long) (size(o, "data") + size(o, "binaryData")));
  }

  /** @return Secret cells */
  static ObjectStrategy secrets() {
    return cell("Data", o -> (long) size(o, "data"));
  }

  /** @return ServiceAccount cells */
  static ObjectStrategy serviceAccounts() {
    return cell("Secrets", o -> (long) o.getJsonArray("secrets", new JsonArray()).size());
  }

  /** @return the {@code Created At} cell as an RFC 3339 time (roles, clusterroles, CRDs) */
  static ObjectStrategy createdAt() {
    return cell("Created At", o -> o.getJsonObject("metadata", new JsonObject()).getString("creationTimestamp"));
  }

  /** @return RoleBinding / ClusterRoleBinding cells */
  static ObjectStrategy bindings() {
    return new ObjectStrategy() {
      @Override
      public Object tableCell(String column, JsonObject o, Object cell) {
        JsonObject ref = o.getJsonObject("roleRef", new JsonObject());
        switch (column) {
          case "Role":
            return ref.getString("kind", "") + "/" + ref.getString("name", "");
          case "Users":
            return subjects(o, "User", false);
          case "Groups":
            return subjects(o, "Group", false);
          case "ServiceAccounts":
            return subjects(o, "ServiceAccount", true);
          default:
            return cell;
        }
      }
    };
  }

  private static String subjects(JsonObject binding, String kind, boolean namespaced) {
    List<String> out = new ArrayList<>();
    for (Object s : binding.getJsonArray("subjects", new JsonArray())) {
      if (s instanceof JsonObject subj && kind.equals(subj.getString("kind"))) {
        out.add(namespaced ? subj.getString("namespace", "") + "/" + subj.getString("name", "")
            : subj.getString("name", ""));
      }
    }
    return String.join(", ", out);
  }

  private static int size(JsonObject o, String field) {
    return o.getValue(field) instanceof JsonObject m ? m.size() : 0;
  }

  private static ObjectStrategy cell(String column, java.util.function.Function<JsonObject, Object> f) {
    return new ObjectStrategy() {
      @Override
      public Object tableCell(String c, JsonObject o, Object cell) {
        return column.equals(c) ? f.apply(o) : cell;
      }
    };
  }
}
