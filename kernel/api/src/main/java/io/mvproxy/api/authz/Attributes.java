package io.mvproxy.api.authz;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;

/**
 * What is being authorized, as kube-apiserver's {@code authorizer.AttributesRecord}
 * ({@code staging/src/k8s.io/apiserver/pkg/authorization/authorizer/interfaces.go}).
 *
 * @param user            the caller
 * @param verb            Kubernetes verb ({@code get}, {@code list}, ..., {@code impersonate}, {@code bind}); for
 *                        non-resource requests the lower-case HTTP method
 * @param resourceRequest true for a resource request, false for a path ({@code /apis}, {@code /healthz})
 * @param path            the URL path (meaningful for non-resource requests)
 * @param namespace       namespace, {@code ""} for cluster scope
 * @param apiGroup        API group, {@code ""} for core
 * @param apiVersion      API version, {@code ""} when unknown (access reviews from kubectl)
 * @param resource        plural resource
 * @param subresource     subresource, {@code ""} when none
 * @param name            object name, {@code ""} when none
 */
public record Attributes(UserInfo user, String verb, boolean resourceRequest, String path, String namespace,
                         String apiGroup, String apiVersion, String resource, String subresource, String name) {
  /** Replaces nulls by {@code ""}. */
  public Attributes {
    verb = n(verb);
    path = n(path);
    namespace = n(namespace);
    apiGroup = n(apiGroup);
    apiVersion = n(apiVersion);
    resource = n(resource);
    subresource = n(subresource);
    name = n(name);
  }

  /**
   * Attributes of a resource request that is not an HTTP request (impersonation, bind, escalate checks).
   *
   * @return the attributes
   */
  public static Attributes resource(UserInfo user, String verb, String namespace, String apiGroup, String resource,
                                    String subresource, String name) {
    return new Attributes(user, verb, true, "", namespace, apiGroup, "", resource, subresource, name);
  }

  /**
   * Attributes of an HTTP request (requestinfo.go): a list or watch whose field selector pins
   * {@code metadata.name=X} is authorized with name X; {@code namespaces/<n>} and its subresources carry
   * namespace {@code <n>}.
   *
   * @param info          the parsed request
   * @param user          the caller
   * @param fieldSelector the {@code fieldSelector} query parameter, or null
   * @return the attributes
   */
  public static Attributes of(RequestInfo info, UserInfo user, String fieldSelector) {
    if (!info.resourceRequest()) {
      return new Attributes(user, info.verb(), false, info.path(), "", "", "", "", "", "");
    }
    String name = info.name();
    if (name.isEmpty() && ("list".equals(info.verb()) || "watch".equals(info.verb())) && fieldSelector != null) {
      name = exactName(fieldSelector);
    }
    String ns = info.namespace();
    if ("namespaces".equals(info.resource()) && info.group().isEmpty() && !info.name().isEmpty() && ns.isEmpty()) {
      ns = info.name();  // /namespaces/<n>: requestinfo.go's namespace is <n>; under another namespace's path, that one
    }
    return new Attributes(user, info.verb(), true, info.path(), ns, info.group(), info.version(), info.resource(),
        info.subresource(), name);
  }

  private static String exactName(String selector) {
    for (String term : selector.split(",")) {
      String t = term.strip();
      for (String op : new String[] {"==", "="}) {
        int i = t.indexOf(op);
        if (i > 0 && !t.substring(0, i).endsWith("!")) {
          String key = t.substring(0, i).strip();
          String value = t.substring(i + op.length()).strip();
          if ("metadata.name".equals(key) && !value.isEmpty() && !value.contains("/") && !value.contains("%")
              && !".".equals(value) && !"..".equals(value)) {
            return value;
          }
          break;
        }
      }
    }
    return "";
  }

  private static String n(String s) {
    return s == null ? "" : s;
  }
}
