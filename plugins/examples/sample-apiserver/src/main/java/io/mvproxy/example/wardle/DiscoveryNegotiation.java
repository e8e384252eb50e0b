package io.mvproxy.example.wardle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses the representation of {@code /apis} from the {@code Accept} header like apiserver's
 * {@code endpoints/discovery/aggregated/negotiation.go}: clauses by q-value (q=0 ignored), then specific types before
 * wildcards, then header order; an {@code application/json} (or wildcard) clause with {@code g=apidiscovery.k8s.io},
 * {@code as=APIGroupDiscoveryList} and {@code v=v2|v2beta1} selects that aggregated version; a clause naming another
 * g/v/as is skipped; a plain JSON or wildcard clause selects legacy. Stateless.
 */
public final class DiscoveryNegotiation {
  /** Answer: legacy JSON. */
  public static final String LEGACY = "legacy";

  private DiscoveryNegotiation() {
  }

  /**
   * @param accept the {@code Accept} header, or null
   * @return {@code v2}, {@code v2beta1} or {@link #LEGACY}; null when nothing is acceptable (answer 406)
   */
  public static String negotiate(String accept) {
    if (accept == null || accept.isBlank()) {
      return LEGACY;
    }
    record Clause(String type, Map<String, String> params, double q, int index) {
      int wildness() {
        return type.equals("*/*") ? 2 : type.endsWith("/*") ? 1 : 0;
      }
    }
    List<Clause> clauses = new ArrayList<>();
    String[] parts = accept.split(",");
    for (int i = 0; i < parts.length; i++) {
      String[] seg = parts[i].split(";");
      Map<String, String> params = new HashMap<>();
      double q = 1;
      for (int j = 1; j < seg.length; j++) {
        int eq = seg[j].indexOf('=');
        if (eq > 0) {
          String k = seg[j].substring(0, eq).trim().toLowerCase(Locale.ROOT);
          String v = seg[j].substring(eq + 1).trim();
          if (k.equals("q")) {
            try {
              q = Double.parseDouble(v);
            } catch (NumberFormatException e) {
              q = 0;
            }
          } else {
            params.put(k, v);
          }
        }
      }
      clauses.add(new Clause(seg[0].trim().toLowerCase(Locale.ROOT), params, q, i));
    }
    clauses.sort(Comparator.comparingDouble((Clause c) -> -c.q()).thenComparingInt(Clause::wildness)
        .thenComparingInt(Clause::index));
    for (Clause c : clauses) {
      if (c.q() <= 0 || !(c.type().equals("application/json") || c.type().equals("application/*")
          || c.type().equals("*/*"))) {
        continue;
      }
      Map<String, String> p = c.params();
      if (!p.containsKey("g") && !p.containsKey("v") && !p.containsKey("as")) {
        return LEGACY;
      }
      String v = p.get("v");
      if ("apidiscovery.k8s.io".equals(p.get("g")) && "APIGroupDiscoveryList".equals(p.get("as"))
          && ("v2".equals(v) || "v2beta1".equals(v))) {
        return v;
      }
    }
    return null;
  }

  /**
   * @param version {@code v2} or {@code v2beta1}
   * @return the exact {@code Content-Type} naming that aggregated document
   */
  public static String contentType(String version) {
    return "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList";
  }
}
