package io.mvproxy.discovery;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chooses the discovery representation from an {@code Accept} header (discovery.md section 2; apiserver
 * {@code aggregated/negotiation.go} and {@code wrapper.go}).
 *
 * <p>Clauses are tried by q-value (highest first, {@code q=0} ignored), then specific types before wildcards, then
 * in header order. A clause of type {@code application/json} (or a wildcard) whose parameters (any order) are
 * {@code g=apidiscovery.k8s.io}, {@code as=APIGroupDiscoveryList} and a supported {@code v} selects aggregated
 * output of exactly that version, {@code profile=nopeer} asking for the local view; a clause naming another
 * {@code g}/{@code v}/{@code as} is skipped; a plain {@code application/json}, {@code application/*} or
 * {@code *}{@code /*} selects legacy JSON. No or an empty {@code Accept} header selects legacy JSON.
 */
public final class AcceptNegotiation {
  private AcceptNegotiation() {
  }

  /**
   * The negotiated representation.
   *
   * @param format V2, V2BETA1 or LEGACY
   * @param nopeer true when the selected aggregated clause had {@code profile=nopeer} (local view only)
   */
  public record Result(DiscoveryFormat format, boolean nopeer) {
    /** Legacy JSON, peer-aggregated. */
    public static final Result LEGACY = new Result(DiscoveryFormat.LEGACY, false);
  }

  /**
   * Negotiates for {@code /api} and {@code /apis}, where aggregated discovery is offered.
   *
   * @param accept the {@code Accept} header value, or null
   * @return the representation to serve
   * @throws StatusException 406 NotAcceptable when no clause is acceptable (e.g. only {@code application/yaml})
   */
  public static Result negotiate(String accept) {
    return negotiate(accept, true);
  }

  /**
   * @param accept           the {@code Accept} header value, or null
   * @param offersAggregated false for paths that only have a legacy document ({@code /api/v1},
   *                         {@code /apis/<g>}, {@code /apis/<g>/<v>}): aggregated clauses are then skipped
   * @return the representation to serve
   * @throws StatusException 406 NotAcceptable when no clause is acceptable
   */
  public static Result negotiate(String accept, boolean offersAggregated) {
    if (accept == null || accept.isBlank()) {
      return Result.LEGACY;
    }
    List<Clause> clauses = parse(accept);
    clauses.sort(Comparator.comparingDouble((Clause c) -> -c.q).thenComparingInt(Clause::wildness)
        .thenComparingInt(c -> c.index));
    for (Clause c : clauses) {
      if (c.q <= 0 || !c.jsonCompatible()) {
        continue;
      }
      boolean namesKind = c.params.containsKey("g") || c.params.containsKey("v") || c.params.containsKey("as");
      if (!namesKind) {
        return Result.LEGACY;
      }
      if (offersAggregated && DiscoveryFormat.GROUP.equals(c.params.get("g"))
          && DiscoveryFormat.LIST_KIND.equals(c.params.get("as"))) {
        DiscoveryFormat f = DiscoveryFormat.ofVersion(c.params.get("v"));
        if (f != null) {
          return new Result(f, "nopeer".equals(c.params.get("profile")));
        }
      }
    }
    throw new StatusException(StatusReason.NotAcceptable, "only the following media types are accepted: "
        + (offersAggregated ? DiscoveryFormat.V2.contentType() + ", " + DiscoveryFormat.V2BETA1.contentType()
        + ", " : "") + "application/json", null);
  }

  private static List<Clause> parse(String accept) {
    List<Clause> out = new ArrayList<>();
    int index = 0;
    for (String raw : splitOutsideQuotes(accept, ',')) {
      List<String> parts = splitOutsideQuotes(raw, ';');
      String type = parts.get(0).trim().toLowerCase(Locale.ROOT);
      if (type.isEmpty()) {
        continue;
      }
      Map<String, String> params = new HashMap<>();
      double q = 1.0;
      for (int i = 1; i < parts.size(); i++) {
        String p = parts.get(i).trim();
        int eq = p.indexOf('=');
        if (eq <= 0) {
          continue;
        }
        String key = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        String value = unquote(p.substring(eq + 1).trim());
        if (key.equals("q")) {
          q = parseQ(value);
        } else {
          params.putIfAbsent(key, value);
        }
      }
      out.add(new Clause(type, params, q, index++));
    }
    return out;
  }

  private static double parseQ(String value) {
    try {
      double q = Double.parseDouble(value);
      return Double.isNaN(q) ? 0 : Math.max(0, Math.min(1, q));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static String unquote(String v) {
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
  }

  private static List<String> splitOutsideQuotes(String s, char sep) {
    List<String> out = new ArrayList<>();
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == sep && !quoted) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    out.add(s.substring(start));
    return out;
  }

  /** One media range of the header. */
  private record Clause(String type, Map<String, String> params, double q, int index) {
    /** @return 0 for a concrete type, 1 for {@code application/*}, 2 for {@code *}{@code /*} */
    int wildness() {
      return type.equals("*/*") ? 2 : type.endsWith("/*") ? 1 : 0;
    }

    boolean jsonCompatible() {
      return type.equals("application/json") || type.equals("application/*") || type.equals("*/*");
    }
  }
}
