package io.mvproxy.registry.impl.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The status of a stored {@code apiextensions.k8s.io/v1} CustomResourceDefinition as kube-apiserver's CRD
 * controllers keep it (pure functions on JSON): conditions as {@code apiextensions-apiserver/pkg/apihelpers}
 * ({@code SetCRDCondition} keeps {@code lastTransitionTime} while the status does not change), the texts of
 * {@code pkg/controller/status/naming_controller.go}, {@code pkg/controller/establish} and
 * {@code pkg/controller/finalizer}, and {@code status.storedVersions} as {@code customresourcedefinition/strategy.go}.
 */
public final class CrdConditions {
  /** The finalizer every CRD gets on its first DELETE; the finalizer controller removes it once its objects are gone. */
  public static final String CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io";
  /** Condition type: the names do not conflict with another CRD's (or a built-in kind's) of the group. */
  public static final String NAMES_ACCEPTED = "NamesAccepted";
  /** Condition type: every live node serves the CRD. */
  public static final String ESTABLISHED = "Established";
  /** Condition type: the CRD is being deleted. */
  public static final String TERMINATING = "Terminating";

  private CrdConditions() {
  }

  /**
   * @param crd  a CRD object
   * @param type a condition type
   * @return the condition, or null
   */
  public static JsonObject find(JsonObject crd, String type) {
    JsonObject status = crd.getValue("status") instanceof JsonObject s ? s : null;
    if (status == null || !(status.getValue("conditions") instanceof JsonArray conds)) {
      return null;
    }
    for (Object o : conds) {
      if (o instanceof JsonObject c && type.equals(c.getString("type"))) {
        return c;
      }
    }
    return null;
  }

  /**
   * @param crd  a CRD object
   * @param type a condition type
   * @return true when the condition is present with status {@code True}
   */
  public static boolean isTrue(JsonObject crd, String type) {
    JsonObject c = find(crd, type);
    return c != null && "True".equals(c.getString("status"));
  }

  /**
   * Sets a condition in place ({@code SetCRDCondition}): {@code lastTransitionTime} is {@code now} when the status
   * changes (or the condition is new), else kept; reason and message are replaced.
   *
   * @param crd     the CRD object (changed)
   * @param type    condition type
   * @param status  {@code True}, {@code False} or {@code Unknown}
   * @param reason  CamelCase reason
   * @param message human-readable message
   * @param now     RFC 3339 time
   * @return {@code crd}
   */
  public static JsonObject set(JsonObject crd, String type, String status, String reason, String message,
                               String now) {
    JsonObject st = crd.getValue("status") instanceof JsonObject s ? s : new JsonObject();
    crd.put("status", st);
    JsonArray conds = st.getValue("conditions") instanceof JsonArray a ? a : new JsonArray();
    st.put("conditions", conds);
    JsonObject next = new JsonObject().put("type", type).put("status", status).put("lastTransitionTime", now)
        .put("reason", reason).put("message", message);
    for (int i = 0; i < conds.size(); i++) {
      if (conds.getValue(i) instanceof JsonObject c && type.equals(c.getString("type"))) {
        if (status.equals(c.getString("status")) && c.getValue("lastTransitionTime") != null) {
          next.put("lastTransitionTime", c.getValue("lastTransitionTime"));
        }
        conds.set(i, next);
        return crd;
      }
    }
    conds.add(next);
    return crd;
  }

  /**
   * Adds the storage version of {@code spec.versions} to {@code status.storedVersions} when missing
   * ({@code strategy.go} PrepareForCreate / PrepareForUpdate), in place.
   *
   * @param crd the CRD object (changed)
   * @return {@code crd}
   */
  public static JsonObject addStorageVersion(JsonObject crd) {
    JsonObject spec = crd.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    JsonObject st = crd.getValue("status") instanceof JsonObject s ? s : new JsonObject();
    Set<String> stored = new LinkedHashSet<>(storedVersions(crd));
    if (spec.getValue("versions") instanceof JsonArray vs) {
      for (Object o : vs) {
        if (o instanceof JsonObject v && Boolean.TRUE.equals(v.getValue("storage")) && v.getString("name") != null) {
          stored.add(v.getString("name"));
          break;
        }
      }
    }
    st.put("storedVersions", new JsonArray(new ArrayList<>(stored)));
    crd.put("status", st);
    return crd;
  }

  /** @param crd a CRD object @return its {@code status.storedVersions} (empty when absent) */
  public static List<String> storedVersions(JsonObject crd) {
    List<String> out = new ArrayList<>();
    if (crd.getValue("status") instanceof JsonObject st && st.getValue("storedVersions") instanceof JsonArray a) {
      a.forEach(v -> out.add(String.valueOf(v)));
    }
    return out;
  }

  /**
   * Checks {@code status.storedVersions} as {@code ValidateCustomResourceDefinitionStoredVersions}: at least one,
   * each one a version of {@code spec.versions}, the storage version among them.
   *
   * @param crd the CRD object
   * @return causes ({@code reason}, {@code message}, {@code field}) of a 422, empty when valid
   */
  public static List<JsonObject> storedVersionProblems(JsonObject crd) {
    List<JsonObject> out = new ArrayList<>();
    List<String> stored = storedVersions(crd);
    String field = "status.storedVersions";
    if (stored.isEmpty()) {
      out.add(cause("FieldValueInvalid", field, "Invalid value: \"null\": must have at least one stored version"));
      return out;
    }
    Set<String> versions = new LinkedHashSet<>();
    String storage = null;
    JsonObject spec = crd.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    if (spec.getValue("versions") instanceof JsonArray vs) {
      for (Object o : vs) {
        if (o instanceof JsonObject v) {
          versions.add(v.getString("name"));
          if (Boolean.TRUE.equals(v.getValue("storage"))) {
            storage = v.getString("name");
          }
        }
      }
    }
    for (int i = 0; i < stored.size(); i++) {
      if (!versions.contains(stored.get(i))) {
        out.add(cause("FieldValueInvalid", field + "[" + i + "]", "Invalid value: \"" + stored.get(i)
            + "\": must appear in spec.versions"));
      }
    }
    if (storage != null && !stored.contains(storage)) {
      out.add(cause("FieldValueInvalid", field, "Invalid value: " + new JsonArray(new ArrayList<>(stored)).encode()
          .replace(",", ", ") + ": must have the storage version " + storage));
    }
    return out;
  }

  /**
   * The names a CRD requests ({@code spec.names}, defaulted: {@code singular} = lower-case kind, {@code listKind} =
   * kind + "List").
   *
   * @param crd a CRD object
   * @return plural, singular, shortNames..., kind, listKind (the resource names and the kind names, in two lists)
   */
  public static Names names(JsonObject crd) {
    JsonObject spec = crd.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    JsonObject n = spec.getValue("names") instanceof JsonObject o ? o : new JsonObject();
    String kind = n.getString("kind", "");
    List<String> shorts = new ArrayList<>();
    if (n.getValue("shortNames") instanceof JsonArray a) {
      a.forEach(x -> shorts.add(String.valueOf(x)));
    }
    String singular = n.getString("singular", "");
    String listKind = n.getString("listKind", "");
    return new Names(spec.getString("group", ""), n.getString("plural", ""),
        singular.isEmpty() ? kind.toLowerCase(java.util.Locale.ROOT) : singular, shorts, kind,
        listKind.isEmpty() && !kind.isEmpty() ? kind + "List" : listKind);
  }

  /**
   * Defaulted names of a CRD.
   *
   * @param group      the API group
   * @param plural     the resource
   * @param singular   singular resource name
   * @param shortNames short names
   * @param kind       kind
   * @param listKind   list kind
   */
  public record Names(String group, String plural, String singular, List<String> shortNames, String kind,
                      String listKind) {
    /** Copies the list. */
    public Names {
      shortNames = List.copyOf(shortNames);
    }

    /** @return the names as {@code status.acceptedNames} carries them */
    public JsonObject toJson() {
      JsonObject o = new JsonObject().put("plural", plural).put("singular", singular).put("kind", kind)
          .put("listKind", listKind);
      if (!shortNames.isEmpty()) {
        o.put("shortNames", new JsonArray(new ArrayList<>(shortNames)));
      }
      return o;
    }
  }

  /**
   * The naming controller's verdict ({@code naming_controller.go calculateNamesAndConditions}): each requested
   * name must be unused by the other CRDs and built-in kinds of the same group. The first conflict found decides the
   * reason ({@code PluralConflict}, {@code SingularConflict}, {@code ShortNamesConflict}, {@code KindConflict},
   * {@code ListKindConflict}), with the message {@code "<name>" is already in use}.
   *
   * @param mine   the CRD's names
   * @param others names of every other CRD and built-in kind (any group; other groups are ignored)
   * @return {@code [status, reason, message]} of the NamesAccepted condition
   */
  public static String[] namesAccepted(Names mine, List<Names> others) {
    Set<String> resources = new LinkedHashSet<>();
    Set<String> kinds = new LinkedHashSet<>();
    for (Names o : others) {
      if (!o.group().equals(mine.group())) {
        continue;
      }
      resources.add(o.plural());
      resources.add(o.singular());
      resources.addAll(o.shortNames());
      kinds.add(o.kind());
      kinds.add(o.listKind());
    }
    resources.remove("");
    kinds.remove("");
    if (resources.contains(mine.plural())) {
      return conflict("PluralConflict", mine.plural());
    }
    if (resources.contains(mine.singular())) {
      return conflict("SingularConflict", mine.singular());
    }
    for (String s : mine.shortNames()) {
      if (resources.contains(s)) {
        return conflict("ShortNamesConflict", s);
      }
    }
    if (kinds.contains(mine.kind())) {
      return conflict("KindConflict", mine.kind());
    }
    if (kinds.contains(mine.listKind())) {
      return conflict("ListKindConflict", mine.listKind());
    }
    return new String[] {"True", "NoConflicts", "no conflicts found"};
  }

  private static String[] conflict(String reason, String name) {
    return new String[] {"False", reason, "\"" + name + "\" is already in use"};
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }
}
