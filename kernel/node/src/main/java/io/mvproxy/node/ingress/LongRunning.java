package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.vertx.core.http.HttpServerRequest;
import java.util.Set;

/**
 * kube-apiserver's long-running request check ({@code apiserver/pkg/server/config.go} {@code BasicLongRunningRequestCheck}
 * with verbs {@code watch, proxy} and subresources {@code attach, exec, proxy, log, portforward}), plus protocol
 * upgrades ({@link io.mvproxy.security.UpgradeTunnel#isUpgradeRequest}: WebSocket, SPDY): such requests get no
 * {@code --request-timeout} and are not counted by the max-in-flight limits.
 */
public final class LongRunning {
  private static final Set<String> VERBS = Set.of("watch", "proxy", "connect");
  private static final Set<String> SUBRESOURCES = Set.of("attach", "exec", "proxy", "log", "portforward");

  private LongRunning() {
  }

  /**
   * @param req  the HTTP request
   * @param info its parsed form
   * @return true when the request may run for long
   */
  public static boolean is(HttpServerRequest req, RequestInfo info) {
    return VERBS.contains(info.verb()) || info.resourceRequest() && SUBRESOURCES.contains(info.subresource())
        || io.mvproxy.security.UpgradeTunnel.isUpgradeRequest(req);
  }
}
