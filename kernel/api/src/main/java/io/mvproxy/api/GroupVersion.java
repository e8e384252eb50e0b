package io.mvproxy.api;

import java.util.Objects;

/**
 * An API group-version. The core group is {@code ""} and is served under {@code /api/<version>}.
 *
 * @param group   API group, {@code ""} for core
 * @param version API version
 */
public record GroupVersion(String group, String version) implements Comparable<GroupVersion> {
  /** @throws NullPointerException when a part is null */
  public GroupVersion {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
  }

  /**
   * Parses {@code group/version} or {@code version} (core).
   *
   * @param apiVersion a Kubernetes {@code apiVersion} value
   * @return the group-version
   */
  public static GroupVersion parse(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? new GroupVersion("", apiVersion)
        : new GroupVersion(apiVersion.substring(0, slash), apiVersion.substring(slash + 1));
  }

  /** @return {@code group/version}, or {@code version} for the core group (the {@code apiVersion} form) */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** @return the URL path prefix: {@code /api/v1} or {@code /apis/<group>/<version>} */
  public String pathPrefix() {
    return group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
  }

  @Override
  public int compareTo(GroupVersion o) {
    int c = group.compareTo(o.group);
    return c != 0 ? c : version.compareTo(o.version);
  }

  @Override
  public String toString() {
    return apiVersion();
  }
}
