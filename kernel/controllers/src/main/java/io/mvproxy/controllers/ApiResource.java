package io.mvproxy.controllers;

import java.util.Set;

/**
 * One resource as discovery lists it.
 *
 * @param group      API group ({@code ""} for core)
 * @param version    version
 * @param resource   plural name
 * @param kind       kind
 * @param namespaced true for namespaced resources
 * @param verbs      verbs ({@code list}, {@code delete}, {@code deletecollection}, ...)
 */
public record ApiResource(String group, String version, String resource, String kind, boolean namespaced,
                          Set<String> verbs) {
  /** @return {@code group/version} ({@code version} for core) */
  public String groupVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** @return client-go's GVR text, e.g. {@code demo.mvproxy.io/v1, Resource=widgets} */
  public String gvrText() {
    return groupVersion() + ", Resource=" + resource;
  }

  /** @return {@code resource.group} ({@code resource} for core), as namespace conditions name it */
  public String groupResource() {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  /**
   * @param namespace namespace, or null/empty for all namespaces (or a cluster-scoped resource)
   * @return the collection path, e.g. {@code /apis/g/v/namespaces/ns/r}
   */
  public String collectionPath(String namespace) {
    String base = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
    return base + (namespaced && namespace != null && !namespace.isEmpty() ? "/namespaces/" + namespace : "")
        + "/" + resource;
  }

  /**
   * @param namespace the object's namespace (ignored for cluster-scoped resources)
   * @param name      the object's name
   * @return its path
   */
  public String objectPath(String namespace, String name) {
    return collectionPath(namespaced ? namespace : null) + "/" + name;
  }
}
