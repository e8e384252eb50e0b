package io.mvproxy.api;

import java.util.Objects;

/**
 * A group/version/resource triple, the key of peer-proxy routing (KEP-4020). The core group is {@code ""}.
 *
 * @param group    API group, {@code ""} for the core group
 * @param version  API version, e.g. {@code v1}
 * @param resource plural resource name, e.g. {@code widgets}
 */
public record Gvr(String group, String version, String resource) {
  /** @throws NullPointerException when a part is null */
  public Gvr {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(resource, "resource");
  }

  /** @return the group-version this resource belongs to */
  public GroupVersion groupVersion() {
    return new GroupVersion(group, version);
  }

  /** @return {@code resource.group} as Kubernetes prints it in messages ({@code resource} for the core group) */
  public String groupResource() {
    return group.isEmpty() ? resource : resource + "." + group;
  }

  @Override
  public String toString() {
    return (group.isEmpty() ? "core" : group) + "/" + version + "/" + resource;
  }
}
