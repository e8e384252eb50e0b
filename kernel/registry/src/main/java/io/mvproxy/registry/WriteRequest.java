package io.mvproxy.registry;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;

/**
 * The request a {@link KindStrategy} hook runs for (what kube-apiserver's strategies read from their
 * {@code context.Context}: the request info and the user).
 *
 * @param info   the parsed request: verb ({@code create}, {@code update}, {@code patch}), namespace ({@code ""} for
 *               a cluster-scoped kind), name, and subresource ({@code ""} for the object itself, {@code status} for
 *               its status subresource)
 * @param user   the authenticated user the request runs as (after impersonation)
 * @param dryRun true for {@code dryRun=All}: nothing will be stored
 */
public record WriteRequest(RequestInfo info, UserInfo user, boolean dryRun) {
  /** @return true when the request writes the {@code status} subresource */
  public boolean status() {
    return "status".equals(info.subresource());
  }
}
