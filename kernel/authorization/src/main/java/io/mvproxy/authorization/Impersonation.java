package io.mvproxy.authorization;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.api.authz.Decision;
import io.vertx.core.MultiMap;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * User impersonation ({@code staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go}): each of
 * {@code Impersonate-User} (users, or serviceaccounts for {@code system:serviceaccount:<ns>:<n>}),
 * {@code Impersonate-Group} (groups), {@code Impersonate-Uid} (uids, group {@code authentication.k8s.io}) and
 * {@code Impersonate-Extra-<key>} (userextras/&lt;key&gt;) is authorized with verb {@code impersonate} for the
 * requestor; then the request continues as the new identity and the headers are removed.
 */
public final class Impersonation {
  /** {@code kubectl --as}. */
  public static final String USER = "Impersonate-User";
  /** {@code kubectl --as-group}, repeatable. */
  public static final String GROUP = "Impersonate-Group";
  /** {@code kubectl --as-uid}. */
  public static final String UID = "Impersonate-Uid";
  /** Prefix of {@code Impersonate-Extra-<key>} headers. */
  public static final String EXTRA_PREFIX = "Impersonate-Extra-";
  private static final String AUTHENTICATION_GROUP = "authentication.k8s.io";

  private Impersonation() {
  }

  /**
   * @param headers request headers
   * @return true when any impersonation header is present
   */
  public static boolean requested(MultiMap headers) {
    if (headers.contains(USER) || headers.contains(GROUP) || headers.contains(UID)) {
      return true;
    }
    for (String n : headers.names()) {
      if (n.regionMatches(true, 0, EXTRA_PREFIX, 0, EXTRA_PREFIX.length())) {
        return true;
      }
    }
    return false;
  }

  /** The {@code apiVersion} upstream gives the UserExtra and UID references: {@code authentication.k8s.io/v1}. */
  private static final String AUTHENTICATION_V1 = "authentication.k8s.io/v1";

  /** @return a {@code v1.ObjectReference} as Go's {@code %v} prints the struct (empty fields leave their spaces) */
  private static String reference(String kind, String name, String apiVersion, String fieldPath) {
    return "{" + kind + "  " + name + "  " + apiVersion + "  " + fieldPath + "}";
  }

  /**
   * Authorizes the impersonation and builds the new identity; removes the impersonation headers.
   *
   * @param requestor  the authenticated caller
   * @param headers    the request headers (modified: impersonation headers removed on success)
   * @param authorizer the node's authorizer chain
   * @return the impersonated user; {@code requestor} itself when the headers request nothing (an empty
   *     {@code Impersonate-User} or {@code Impersonate-Uid} alone)
   * @throws StatusException 400 when groups, uid or extras come without a user; 403 with kube-apiserver's text when
   *     one check is denied (e.g. {@code users "bob" is forbidden: User "alice" cannot impersonate resource
   *     "users" in API group "" at the cluster scope})
   */
  public static UserInfo impersonate(UserInfo requestor, MultiMap headers, Authorizer authorizer) {
    // upstream reads the user and the uid with headers.Get: an empty value requests nothing (every Impersonate-Group
    // value and every extra value counts, empty ones too)
    String user = emptyToNull(headers.get(USER));
    List<String> groups = headers.getAll(GROUP);
    String uid = emptyToNull(headers.get(UID));
    Map<String, List<String>> extra = new LinkedHashMap<>();
    List<String> extraHeaders = new ArrayList<>();
    for (String n : headers.names()) {
      if (n.regionMatches(true, 0, EXTRA_PREFIX, 0, EXTRA_PREFIX.length())) {
        extraHeaders.add(n);
        String key = URLDecoder.decode(n.substring(EXTRA_PREFIX.length()).toLowerCase(), StandardCharsets.UTF_8);
        extra.computeIfAbsent(key, k -> new ArrayList<>()).addAll(headers.getAll(n));
      }
    }
    if (user == null && groups.isEmpty() && uid == null && extra.isEmpty()) {
      headers.remove(USER);
      headers.remove(UID);
      return requestor;  // buildImpersonationRequests found no request: the caller goes on as itself
    }
    boolean hasUser = user != null;
    if (!hasUser && (!groups.isEmpty() || (uid != null && !uid.isEmpty()) || !extra.isEmpty())) {
      // buildImpersonationRequests' []v1.ObjectReference printed with %v: each reference's fields Kind, Namespace,
      // Name, UID, APIVersion, ResourceVersion, FieldPath between braces; groups, then extras, then the uid
      List<String> what = new ArrayList<>();
      groups.forEach(g -> what.add(reference("Group", g, "", "")));
      extra.forEach((k, vs) -> vs.forEach(v -> what.add(reference("UserExtra", v, AUTHENTICATION_V1, k))));
      if (uid != null && !uid.isEmpty()) {
        what.add(reference("UID", uid, AUTHENTICATION_V1, ""));
      }
      throw StatusException.badRequest("requested [" + String.join(" ", what) + "] without impersonating a user");
    }
    String username = user;
    List<String> newGroups = new ArrayList<>();
    String[] sa = serviceAccount(user);
    if (sa != null) {
      check(authorizer, Attributes.resource(requestor, "impersonate", sa[0], "", "serviceaccounts", "", sa[1]));
      if (groups.isEmpty()) {
        newGroups.add("system:serviceaccounts");
        newGroups.add("system:serviceaccounts:" + sa[0]);
      }
    } else {
      check(authorizer, Attributes.resource(requestor, "impersonate", "", "", "users", "", user));
    }
    for (String g : groups) {
      check(authorizer, Attributes.resource(requestor, "impersonate", "", "", "groups", "", g));
      newGroups.add(g);
    }
    if (uid != null && !uid.isEmpty()) {
      check(authorizer, Attributes.resource(requestor, "impersonate", "", AUTHENTICATION_GROUP, "uids", "", uid));
    }
    for (Map.Entry<String, List<String>> e : extra.entrySet()) {
      for (String v : e.getValue()) {
        check(authorizer, Attributes.resource(requestor, "impersonate", "", AUTHENTICATION_GROUP, "userextras",
            e.getKey(), v));
      }
    }
    if (!"system:anonymous".equals(username)) {
      if (!newGroups.contains("system:authenticated") && !newGroups.contains("system:unauthenticated")) {
        newGroups.add("system:authenticated");
      }
    } else if (!newGroups.contains("system:unauthenticated")) {
      newGroups.add("system:unauthenticated");
    }
    headers.remove(USER);
    headers.remove(GROUP);
    headers.remove(UID);
    extraHeaders.forEach(headers::remove);
    return new UserInfo(username, uid == null ? "" : uid, newGroups, extra);
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static void check(Authorizer authorizer, Attributes a) {
    Decision d = authorizer.authorize(a);
    if (!d.allowed()) {
      throw Forbidden.of(a, d.reason());
    }
  }

  /** {@code serviceaccount.SplitUsername}: {namespace, name}, or null when not a service-account user name. */
  static String[] serviceAccount(String user) {
    if (!user.startsWith(RbacAuthorizer.SERVICE_ACCOUNT_PREFIX)) {
      return null;
    }
    String[] parts = user.substring(RbacAuthorizer.SERVICE_ACCOUNT_PREFIX.length()).split(":", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      return null;
    }
    return parts;
  }
}
