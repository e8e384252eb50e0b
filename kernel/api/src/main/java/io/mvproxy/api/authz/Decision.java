package io.mvproxy.api.authz;

/**
 * An authorizer's answer ({@code authorizer.Decision}) with its reason, e.g.
 * {@code RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "edit" to User "alice"}.
 *
 * @param verdict ALLOW, DENY or NO_OPINION
 * @param reason  the reason, {@code ""} when none
 */
public record Decision(Verdict verdict, String reason) {
  /** The three answers of an authorizer. */
  public enum Verdict {
    /** Allowed: the chain stops here. */
    ALLOW,
    /** Denied: the chain stops here. */
    DENY,
    /** No opinion: the next authorizer is asked; if none allows, the request is denied. */
    NO_OPINION
  }

  /** Replaces a null reason by {@code ""}. */
  public Decision {
    reason = reason == null ? "" : reason;
  }

  /** @return true when {@link #verdict()} is ALLOW */
  public boolean allowed() {
    return verdict == Verdict.ALLOW;
  }

  /** @param reason why @return an ALLOW decision */
  public static Decision allow(String reason) {
    return new Decision(Verdict.ALLOW, reason);
  }

  /** @param reason why @return a DENY decision */
  public static Decision deny(String reason) {
    return new Decision(Verdict.DENY, reason);
  }

  /** @param reason why (may be empty) @return a NO_OPINION decision */
  public static Decision noOpinion(String reason) {
    return new Decision(Verdict.NO_OPINION, reason);
  }
}
