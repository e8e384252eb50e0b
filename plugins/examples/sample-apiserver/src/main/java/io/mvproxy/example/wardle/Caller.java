package io.mvproxy.example.wardle;

import java.util.List;

/**
 * Who called the sample server, as its request-header authenticator decided.
 *
 * @param user   user name ({@code system:anonymous} when not authenticated)
 * @param groups groups ({@code system:unauthenticated} for anonymous)
 */
public record Caller(String user, List<String> groups) {
  /** The identity of requests that are not authenticated. */
  public static final Caller ANONYMOUS = new Caller("system:anonymous", List.of("system:unauthenticated"));
  /** Key of the caller in the routing context. */
  public static final String CONTEXT_KEY = "wardle.caller";

  /** Copies the group list. */
  public Caller {
    groups = List.copyOf(groups);
  }

  /** @return true for {@link #ANONYMOUS} */
  public boolean anonymous() {
    return ANONYMOUS.user.equals(user);
  }
}
