package io.mvproxy.controllers;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The namespace deletion conditions of one pass, as upstream's
 * {@code pkg/controller/namespace/deletion/status_condition_utils.go}: all five types are written on every pass, the
 * failing ones {@code True} with their reason and message, the others {@code False} with the "fine" reason;
 * {@code lastTransitionTime} changes only when a condition's status flips.
 */
public final class NamespaceConditions {
  /** Condition types in upstream's order. */
  public static final List<String> TYPES = List.of("NamespaceDeletionDiscoveryFailure",
      "NamespaceDeletionGroupVersionParsingFailure", "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
      "NamespaceFinalizersRemaining");
  private static final Map<String, String[]> FINE = Map.of(
      "NamespaceDeletionDiscoveryFailure", new String[] {"ResourcesDiscovered", "All resources successfully discovered"},
      "NamespaceDeletionGroupVersionParsingFailure",
      new String[] {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
      "NamespaceDeletionContentFailure",
      new String[] {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
      "NamespaceContentRemaining", new String[] {"ContentRemoved", "All content successfully removed"},
      "NamespaceFinalizersRemaining", new String[] {"ContentRemoved", "All content successfully removed"});

  private final Map<String, String[]> failing = new LinkedHashMap<>();
  private final List<String> contentErrors = new ArrayList<>();
  private final Map<String, Integer> remaining = new TreeMap<>();
  private final Map<String, Integer> finalizers = new TreeMap<>();

  /**
   * Records a discovery failure.
   *
   * @param failedGroups how many group-versions failed
   * @param error        client-go's error text
   */
  public void discoveryFailed(int failedGroups, String error) {
    failing.put("NamespaceDeletionDiscoveryFailure", new String[] {"DiscoveryFailed",
        "Discovery failed for some groups, " + failedGroups + " failing: " + error});
  }

  /** @param error one resource's deletion error */
  public void contentFailed(String error) {
    contentErrors.add(error);
  }

  /**
   * Adds one resource's leftovers.
   *
   * @param groupResource  {@code resource.group}
   * @param count          items remaining
   * @param finalizerCount finalizer name to items carrying it
   */
  public void remaining(String groupResource, int count, Map<String, Integer> finalizerCount) {
    if (count > 0) {
      remaining.merge(groupResource, count, Integer::sum);
    }
    finalizerCount.forEach((f, n) -> finalizers.merge(f, n, Integer::sum));
  }

  /**
   * The namespace's next {@code status.conditions}.
   *
   * @param current the current conditions (for {@code lastTransitionTime})
   * @param now     this pass's time
   * @return the five conditions
   */
  public JsonArray conditions(JsonArray current, Instant now) {
    Map<String, String[]> f = new LinkedHashMap<>(failing);
    if (!contentErrors.isEmpty()) {
      List<String> sorted = contentErrors.stream().sorted().toList();
      String agg = sorted.size() == 1 ? sorted.get(0) : "[" + String.join(", ", sorted) + "]";
      f.put("NamespaceDeletionContentFailure", new String[] {"ContentDeletionFailed",
          "Failed to delete all resource types, " + contentErrors.size() + " remaining: " + agg});
    }
    if (!remaining.isEmpty()) {
      f.put("NamespaceContentRemaining", new String[] {"SomeResourcesRemain", "Some resources are remaining: "
          + remaining.entrySet().stream().map(e -> e.getKey() + " has " + e.getValue() + " resource instances")
          .collect(Collectors.joining(", "))});
    }
    if (!finalizers.isEmpty()) {
      f.put("NamespaceFinalizersRemaining", new String[] {"SomeFinalizerRemain", "Some finalizers are remaining: "
          + finalizers.entrySet().stream().map(e -> e.getKey() + " in " + e.getValue() + " resource instances")
          .collect(Collectors.joining(", "))});
    }
    Map<String, JsonObject> old = new LinkedHashMap<>();
    if (current != null) {
      current.forEach(c -> old.put(((JsonObject) c).getString("type"), (JsonObject) c));
    }
    JsonArray out = new JsonArray();
    for (String t : TYPES) {
      String[] rm = f.containsKey(t) ? f.get(t) : FINE.get(t);
      String status = f.containsKey(t) ? "True" : "False";
      JsonObject prev = old.get(t);
      String ltt = prev != null && status.equals(prev.getString("status")) && prev.getString("lastTransitionTime") != null
          ? prev.getString("lastTransitionTime") : MicroTime.seconds(now);
      out.add(new JsonObject().put("type", t).put("status", status).put("lastTransitionTime", ltt)
          .put("reason", rm[0]).put("message", rm[1]));
    }
    return out;
  }
}
