package io.mvproxy.discovery;

import java.math.BigInteger;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kube-aware version order, best first (discovery.md section 4; apimachinery {@code pkg/version/helpers.go},
 * {@code CompareKubeAwareVersionStrings}). Kube-like versions ({@code v<N>}, {@code v<N>alpha<M>},
 * {@code v<N>beta<M>}) come before the others; among them GA before beta before alpha, then higher {@code N}, then
 * higher {@code M}; non-kube-like versions sort alphabetically ascending. Example, best first:
 * {@code v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10}.
 *
 * <p>A total order: two different strings never compare equal (ties such as {@code v1} / {@code v01} fall back to
 * plain string order), so sorting with it is deterministic.
 */
public final class VersionOrder implements Comparator<String> {
  /** The shared, stateless instance. */
  public static final VersionOrder INSTANCE = new VersionOrder();

  private static final Pattern KUBE = Pattern.compile("^v(\\d+)(?:(alpha|beta)(\\d+))?$");

  private VersionOrder() {
  }

  /**
   * Compares two versions, best first.
   *
   * @param a a version, e.g. {@code v1beta1} (not null)
   * @param b another version
   * @return negative when {@code a} is preferred over {@code b}, positive when {@code b} is, 0 only when equal
   */
  @Override
  public int compare(String a, String b) {
    if (a.equals(b)) {
      return 0;
    }
    Matcher ma = KUBE.matcher(a);
    Matcher mb = KUBE.matcher(b);
    boolean ka = ma.matches();
    boolean kb = mb.matches();
    if (ka != kb) {
      return ka ? -1 : 1;
    }
    if (!ka) {
      return a.compareTo(b);
    }
    int sa = stability(ma.group(2));
    int sb = stability(mb.group(2));
    if (sa != sb) {
      return Integer.compare(sb, sa);
    }
    int c = new BigInteger(mb.group(1)).compareTo(new BigInteger(ma.group(1)));
    if (c != 0) {
      return c;
    }
    if (ma.group(3) != null) {
      c = new BigInteger(mb.group(3)).compareTo(new BigInteger(ma.group(3)));
      if (c != 0) {
        return c;
      }
    }
    return a.compareTo(b);
  }

  /**
   * @param version a version string
   * @return true when it is {@code v<N>}, {@code v<N>alpha<M>} or {@code v<N>beta<M>}
   */
  public static boolean isKubeLike(String version) {
    return KUBE.matcher(version).matches();
  }

  private static int stability(String qualifier) {
    if (qualifier == null) {
      return 2;
    }
    return "beta".equals(qualifier) ? 1 : 0;
  }
}
