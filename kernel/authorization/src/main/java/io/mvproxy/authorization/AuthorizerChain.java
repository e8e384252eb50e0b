package io.mvproxy.authorization;

import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.api.authz.Decision;
import java.util.ArrayList;
import java.util.List;

/**
 * The authorizer of {@code --authorization-mode} (kube-apiserver's {@code pkg/kubeapiserver/authorizer/config.go}
 * and {@code authorizer/union/union.go}): members of {@code system:masters} are allowed first, then each mode in
 * order; the first ALLOW or DENY wins, and when every mode has no opinion the request is denied with the modes'
 * reasons joined by newlines.
 */
public final class AuthorizerChain implements Authorizer {
  /** The privileged group ({@code user.SystemPrivilegedGroup}). */
  public static final String MASTERS = "system:masters";
  /** Every mode name kube-apiserver knows. */
  public static final List<String> KNOWN_MODES = List.of("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node");
  /** The modes mvproxy implements. */
  public static final List<String> SUPPORTED_MODES = List.of("AlwaysAllow", "AlwaysDeny", "RBAC");

  private final List<String> modes;
  private final List<Authorizer> authorizers;

  /**
   * @param modes the mode names, in order
   * @param rbac  the RBAC authorizer (used when {@code RBAC} is listed)
   * @throws IllegalArgumentException naming the mode when it is empty, unknown, repeated or not implemented
   */
  public AuthorizerChain(List<String> modes, Authorizer rbac) {
    validate(modes);
    this.modes = List.copyOf(modes);
    List<Authorizer> list = new ArrayList<>();
    for (String m : modes) {
      switch (m) {
        case "AlwaysAllow" -> list.add(a -> Decision.allow(""));
        case "AlwaysDeny" -> list.add(a -> Decision.deny(""));
        case "RBAC" -> list.add(rbac);
        default -> throw new IllegalStateException(m);
      }
    }
    this.authorizers = List.copyOf(list);
  }

  /**
   * Checks a mode list as kube-apiserver's options validation does.
   *
   * @param modes the modes
   * @throws IllegalArgumentException with the reason
   */
  public static void validate(List<String> modes) {
    if (modes.isEmpty()) {
      throw new IllegalArgumentException("at least one authorization-mode must be passed");
    }
    List<String> seen = new ArrayList<>();
    for (String m : modes) {
      if (!KNOWN_MODES.contains(m)) {
        throw new IllegalArgumentException("authorization-mode \"" + m + "\" is not a valid mode (one of "
            + String.join(",", KNOWN_MODES) + ")");
      }
      if (!SUPPORTED_MODES.contains(m)) {
        throw new IllegalArgumentException("authorization-mode \"" + m + "\" is not supported by mvproxy (one of "
            + String.join(",", SUPPORTED_MODES) + ")");
      }
      if (seen.contains(m)) {
        throw new IllegalArgumentException("authorization-mode " + m + " has mode specified more than once");
      }
      seen.add(m);
    }
  }

  /** @return the modes in order */
  public List<String> modes() {
    return modes;
  }

  @Override
  public Decision authorize(Attributes a) {
    if (a.user() != null && a.user().groups().contains(MASTERS)) {
      return Decision.allow("");
    }
    List<String> reasons = new ArrayList<>();
    for (Authorizer z : authorizers) {
      Decision d = z.authorize(a);
      if (!d.reason().isEmpty()) {
        reasons.add(d.reason());
      }
      if (d.verdict() != Decision.Verdict.NO_OPINION) {
        return d;
      }
    }
    return Decision.noOpinion(String.join("\n", reasons));
  }
}
