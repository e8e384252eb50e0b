package io.mvproxy.api.authz;

/**
 * Decides whether a request is allowed ({@code authorizer.Authorizer}). Implementations answer from memory and
 * never block.
 */
@FunctionalInterface
public interface Authorizer {
  /**
   * @param attributes what is asked
   * @return the decision, never null
   */
  Decision authorize(Attributes attributes);
}
