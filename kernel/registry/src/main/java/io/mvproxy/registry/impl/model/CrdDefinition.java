package io.mvproxy.registry.impl.model;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import java.util.List;
import java.util.Optional;

/**
 * A validated and defaulted {@code apiextensions.k8s.io/v1 CustomResourceDefinition}, as
 * {@code apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go} leaves it.
 *
 * @param name           {@code metadata.name} ({@code <plural>.<group>})
 * @param group          API group
 * @param plural         plural resource name (lower case)
 * @param singular       singular name (defaults to the lower-cased kind)
 * @param kind           object kind
 * @param listKind       list kind (defaults to kind + {@code List})
 * @param shortNames     short names
 * @param categories     categories
 * @param namespaced     true for {@code scope: Namespaced}
 * @param versions       all versions in manifest order
 */
public record CrdDefinition(String name, String group, String plural, String singular, String kind, String listKind,
                            List<String> shortNames, List<String> categories, boolean namespaced,
                            List<CrdVersion> versions) {
  /** Copies the lists. */
  public CrdDefinition {
    shortNames = List.copyOf(shortNames);
    categories = List.copyOf(categories);
    versions = List.copyOf(versions);
  }

  /** @return the storage version (exactly one exists after validation) */
  public CrdVersion storageVersion() {
    return versions.stream().filter(CrdVersion::storage).findFirst().orElseThrow();
  }

  /** @return the served versions in manifest order */
  public List<CrdVersion> servedVersions() {
    return versions.stream().filter(CrdVersion::served).toList();
  }

  /**
   * @param version a version name
   * @return that version when it exists and is served
   */
  public Optional<CrdVersion> served(String version) {
    return versions.stream().filter(v -> v.served() && v.name().equals(version)).findFirst();
  }

  /** @return the resource for {@code version} */
  public Gvr gvr(String version) {
    return new Gvr(group, version, plural);
  }

  /** @return {@code group/version} of the storage version, the {@code apiVersion} objects are stored with */
  public String storageApiVersion() {
    return new GroupVersion(group, storageVersion().name()).apiVersion();
  }

  /**
   * @return the storage key prefix of the objects, {@code <group>/<plural>} as kube-apiserver's CRDRESTOptionsGetter
   *     lays custom resources out ({@code /registry/<group>/<plural>/<namespace>/<name>} on etcd)
   */
  public String storageKey() {
    return group + "/" + plural;
  }
}
