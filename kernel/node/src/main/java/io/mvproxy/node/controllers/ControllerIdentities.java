package io.mvproxy.node.controllers;

import io.mvproxy.api.UserInfo;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The identities of a node's controller manager, each with a random bearer token (256 bits) created at start-up
 * and known only to this process, accepted by the node's authenticator (like kube-apiserver's loopback token):
 * {@code system:kube-controller-manager} (leader election) and, as with kube-controller-manager's
 * {@code --use-service-account-credentials}, the service accounts {@code kube-system/namespace-controller} and
 * {@code kube-system/generic-garbage-collector} and {@code kube-system/service-account-controller}. The bootstrap RBAC
 * policy binds each to upstream's role. The node's own post-start controllers (the apiserver identity Lease and its
 * garbage collector) use {@code system:apiserver} in {@code system:masters}, as kube-apiserver's loopback client.
 *
 * @param leaderElectionToken   token of {@code system:kube-controller-manager}
 * @param namespaceToken        token of {@code system:serviceaccount:kube-system:namespace-controller}
 * @param garbageCollectorToken token of {@code system:serviceaccount:kube-system:generic-garbage-collector}
 * @param serviceAccountToken   token of {@code system:serviceaccount:kube-system:service-account-controller}
 * @param apiserverToken        token of {@code system:apiserver} (group {@code system:masters}), the loopback identity
 */
public record ControllerIdentities(String leaderElectionToken, String namespaceToken, String garbageCollectorToken,
                                   String serviceAccountToken, String apiserverToken) {
  /** The controller manager's user. */
  public static final String KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager";
  /** The loopback user of kube-apiserver ({@code user.APIServerUser}). */
  public static final String APISERVER = "system:apiserver";

  /** @return five fresh random tokens */
  public static ControllerIdentities generate() {
    return new ControllerIdentities(token(), token(), token(), token(), token());
  }

  /** @return token to user, for {@link io.mvproxy.security.Authenticator#withTokens} */
  public Map<String, UserInfo> tokens() {
    return Map.of(leaderElectionToken, new UserInfo(KUBE_CONTROLLER_MANAGER, "", List.of(), Map.of()),
        namespaceToken, serviceAccount("namespace-controller"),
        garbageCollectorToken, serviceAccount("generic-garbage-collector"),
        serviceAccountToken, serviceAccount("service-account-controller"),
        apiserverToken, new UserInfo(APISERVER, "", List.of("system:masters"), Map.of()));
  }

  private static UserInfo serviceAccount(String name) {
    return new UserInfo("system:serviceaccount:kube-system:" + name, "",
        List.of("system:serviceaccounts", "system:serviceaccounts:kube-system"), Map.of());
  }

  private static String token() {
    byte[] b = new byte[32];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
