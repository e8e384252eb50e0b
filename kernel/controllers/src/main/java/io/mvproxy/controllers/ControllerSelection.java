package io.mvproxy.controllers;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * kube-controller-manager's {@code --controllers} ({@code cmd/kube-controller-manager/app/controllermanager.go}
 * {@code IsControllerEnabled}): a list of names, {@code *} for every controller on by default, {@code name} to
 * enable one, {@code -name} to disable one (a named entry wins over {@code *}). The controllers are
 * {@value #NAMESPACE}, {@value #GARBAGE_COLLECTOR} and {@value #SERVICE_ACCOUNT}, also spelled by their older
 * aliases {@code namespace}, {@code garbagecollector} and {@code serviceaccount}.
 */
public final class ControllerSelection {
  /** The namespace controller's name. */
  public static final String NAMESPACE = "namespace-controller";
  /** The garbage collector's name. */
  public static final String GARBAGE_COLLECTOR = "garbage-collector-controller";
  /** The service account controller's name. */
  public static final String SERVICE_ACCOUNT = "serviceaccount-controller";
  /** Every controller, on by default. */
  public static final List<String> ALL = List.of(NAMESPACE, GARBAGE_COLLECTOR, SERVICE_ACCOUNT);
  private static final Map<String, String> ALIASES = Map.of("namespace", NAMESPACE,
      "garbagecollector", GARBAGE_COLLECTOR, "serviceaccount", SERVICE_ACCOUNT, NAMESPACE, NAMESPACE,
      GARBAGE_COLLECTOR, GARBAGE_COLLECTOR, SERVICE_ACCOUNT, SERVICE_ACCOUNT);

  private ControllerSelection() {
  }

  /**
   * Resolves a {@code --controllers} list.
   *
   * @param entries the list ({@code *}, {@code name}, {@code -name})
   * @return the enabled controllers' canonical names, in {@link #ALL} order
   * @throws IllegalArgumentException naming an entry that is not a known controller, as upstream's
   *     {@code "<name>" is not in the list of known controllers}
   */
  public static Set<String> enabled(List<String> entries) {
    Set<String> on = new LinkedHashSet<>();
    Set<String> off = new LinkedHashSet<>();
    boolean star = false;
    for (String raw : entries) {
      String e = raw.trim();
      if (e.isEmpty()) {
        continue;
      }
      if (e.equals("*")) {
        star = true;
        continue;
      }
      boolean minus = e.startsWith("-");
      String name = ALIASES.get(minus ? e.substring(1) : e);
      if (name == null) {
        throw new IllegalArgumentException("\"" + (minus ? e.substring(1) : e)
            + "\" is not in the list of known controllers " + ALL);
      }
      (minus ? off : on).add(name);
    }
    Set<String> out = new LinkedHashSet<>();
    for (String c : ALL) {
      if (on.contains(c) || star && !off.contains(c)) {
        out.add(c);
      }
    }
    return out;
  }
}
