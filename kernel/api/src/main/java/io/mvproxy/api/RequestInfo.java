package io.mvproxy.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a request addresses, parsed from its method, path and query like Kubernetes'
 * {@code staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go}.
 *
 * @param resourceRequest true for {@code /api/<v>/...} and {@code /apis/<g>/<v>/...} paths that name a resource
 * @param path            the request path without query
 * @param verb            Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection;
 *                        for non-resource requests the lower-case HTTP method
 * @param apiPrefix       {@code api} or {@code apis}, {@code ""} for non-resource paths
 * @param group           API group ({@code ""} for core)
 * @param version         API version ({@code ""} when absent)
 * @param namespace       namespace, {@code ""} when none
 * @param resource        plural resource, {@code ""} when none
 * @param name            object name, {@code ""} when none
 * @param subresource     subresource (e.g. {@code status}), {@code ""} when none
 */
public record RequestInfo(boolean resourceRequest, String path, String verb, String apiPrefix, String group,
                          String version, String namespace, String resource, String name, String subresource) {

  /** Subresources of a namespace itself ({@code namespaces/<n>/status}), not resources inside it (requestinfo.go). */
  private static final java.util.Set<String> NAMESPACE_SUBRESOURCES = java.util.Set.of("status", "finalize");

  /** @return the (group, version, resource) routing key; only meaningful when {@link #resourceRequest()} */
  public Gvr gvr() {
    return new Gvr(group, version, resource);
  }

  /** @return the group-version of the path; only meaningful when {@link #version()} is non-empty */
  public GroupVersion groupVersion() {
    return new GroupVersion(group, version);
  }

  /**
   * Parses a request.
   *
   * @param method HTTP method (GET, POST, ...)
   * @param path   URL path as sent (no query); percent-decoded before it is split, as Go's {@code URL.Path}
   * @param watchParam value of the {@code watch} query parameter or null (true unless {@code false}/{@code 0},
   *                   {@link BoolParam})
   * @return the request info; never null. Paths outside {@code /api} and {@code /apis}, and discovery paths
   *     ({@code /apis}, {@code /apis/<g>}, {@code /apis/<g>/<v>}), are non-resource requests.
   * @throws StatusException 400 BadRequest for a malformed percent-escape
   */
  public static RequestInfo parse(String method, String path, String watchParam) {
    String lowerMethod = method.toLowerCase();
    path = PathSegments.decode(path);
    List<String> parts = new ArrayList<>(Arrays.asList(trim(path).split("/")));
    if (parts.size() == 1 && parts.get(0).isEmpty()) {
      parts.clear();
    }
    String prefix = parts.isEmpty() ? "" : parts.get(0);
    int minParts = "api".equals(prefix) ? 3 : 4;
    if (!("api".equals(prefix) || "apis".equals(prefix)) || parts.size() < minParts) {
      String gp = "apis".equals(prefix) && parts.size() >= 2 ? parts.get(1) : "";
      String vp = "apis".equals(prefix) && parts.size() >= 3 ? parts.get(2)
          : "api".equals(prefix) && parts.size() >= 2 ? parts.get(1) : "";
      String ap = "api".equals(prefix) || "apis".equals(prefix) ? prefix : "";
      return new RequestInfo(false, path, lowerMethod, ap, gp, vp, "", "", "", "");
    }
    parts.remove(0);
    String group = "";
    if ("apis".equals(prefix)) {
      group = parts.remove(0);
    }
    String version = parts.remove(0);
    boolean watchPrefix = false;
    if (!parts.isEmpty() && "watch".equals(parts.get(0))) {
      watchPrefix = true;
      parts.remove(0);
    }
    String namespace = "";
    boolean nested = false;
    if (parts.size() >= 2 && "namespaces".equals(parts.get(0))) {
      namespace = parts.get(1);
      if (parts.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(parts.get(2))) {
        parts = new ArrayList<>(parts.subList(2, parts.size()));
        nested = true;
      }
    }
    String resource = parts.size() > 0 ? parts.get(0) : "";
    String name = parts.size() > 1 ? parts.get(1) : "";
    String sub = parts.size() > 2 ? parts.get(2) : "";
    if ("namespaces".equals(resource) && !nested && parts.size() >= 2 && parts.get(1).equals(namespace)) {
      // /namespaces/<name>[/<sub>]: a Namespace itself, cluster-scoped (a Namespace inside a namespace's path,
      // /namespaces/a/namespaces/a, keeps its namespace, so the cluster-scoped resource answers 404 as go-restful)
      namespace = "";
    }
    String verb;
    switch (lowerMethod) {
      case "post": verb = "create"; break;
      case "put": verb = "update"; break;
      case "patch": verb = "patch"; break;
      case "delete": verb = name.isEmpty() ? "deletecollection" : "delete"; break;
      case "get": case "head":
        // requestinfo.go: a name makes it a get (?watch is then ignored, as GetResource decodes only GetOptions),
        // unless the path says watch; without one, ?watch picks watch over list
        verb = watchPrefix ? "watch" : !name.isEmpty() ? "get" : BoolParam.of(watchParam) ? "watch" : "list";
        break;
      default: verb = lowerMethod;
    }
    return new RequestInfo(true, path, verb, prefix, group, version, namespace, resource, name, sub);
  }

  /**
   * Whether a resource path has a shape the API serves, as go-restful's routes allow (requestinfo.go itself ignores
   * what follows a subresource): {@code /api/<v>} or {@code /apis/<g>/<v>}, an optional {@code watch},
   * {@code namespaces/<ns>}, then at most {@code <resource>/<name>/<subresource>}; no empty segment (so
   * {@code .../namespaces//widgets} is not a list of every namespace). Anything else answers 404.
   *
   * @param path the raw request path (percent-encoded)
   * @return false when the path has extra or empty segments
   */
  public static boolean routable(String path) {
    String t = trim(PathSegments.decode(path));
    if (t.contains("//")) {
      return false;
    }
    List<String> parts = new ArrayList<>(Arrays.asList(t.split("/")));
    int at = "apis".equals(parts.get(0)) ? 3 : 2;
    if (parts.size() > at && "watch".equals(parts.get(at))) {
      at++;
    }
    if (parts.size() > at + 1 && "namespaces".equals(parts.get(at))
        && !(parts.size() == at + 3 && NAMESPACE_SUBRESOURCES.contains(parts.get(at + 2)))) {
      at += 2;
    }
    return parts.size() - at <= 3;
  }

  private static String trim(String path) {
    int s = 0;
    int e = path.length();
    while (s < e && path.charAt(s) == '/') {
      s++;
    }
    while (e > s && path.charAt(e - 1) == '/') {
      e--;
    }
    return path.substring(s, e);
  }
}
