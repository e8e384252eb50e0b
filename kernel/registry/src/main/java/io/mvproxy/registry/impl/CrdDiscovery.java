package io.mvproxy.registry.impl;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Builds the discovery entries of a CRD (discovery.md section 7; apiextensions-apiserver
 * {@code pkg/apiserver/customresource_discovery_controller.go}).
 */
public final class CrdDiscovery {
  /** Verbs of a custom resource, in the order the server lists them. */
  public static final List<String> VERBS =
      List.of("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch");
  /** Verbs of the status and scale subresources. */
  public static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");
  /** {@code groupPriorityMinimum} of every CRD group. */
  public static final int GROUP_PRIORITY = 1000;
  /** {@code versionPriority} of every CRD version. */
  public static final int VERSION_PRIORITY = 100;

  private CrdDiscovery() {
  }

  /**
   * @param crd the definition
   * @return one entry per served version, in manifest order
   */
  public static List<ServedGroupVersion> groupVersions(CrdDefinition crd) {
    return groupVersions(crd, GROUP_PRIORITY, VERSION_PRIORITY);
  }

  /**
   * @param crd             the definition
   * @param groupPriority   {@code groupPriorityMinimum}
   * @param versionPriority {@code versionPriority}
   * @return one entry per served version, in manifest order
   */
  public static List<ServedGroupVersion> groupVersions(CrdDefinition crd, int groupPriority, int versionPriority) {
    return groupVersions(crd, groupPriority, versionPriority, verb -> true);
  }

  /**
   * @param crd             the definition
   * @param groupPriority   {@code groupPriorityMinimum}
   * @param versionPriority {@code versionPriority}
   * @param verbs           which of {@link #VERBS} the kind serves
   * @return one entry per served version, in manifest order
   */
  public static List<ServedGroupVersion> groupVersions(CrdDefinition crd, int groupPriority, int versionPriority,
                                                       java.util.function.Predicate<String> verbs) {
    return groupVersions(crd, groupPriority, versionPriority, verbs, false);
  }

  /**
   * @param crd             the definition
   * @param groupPriority   {@code groupPriorityMinimum}
   * @param versionPriority {@code versionPriority}
   * @param verbs           which of {@link #VERBS} the kind serves
   * @param sorted          true for a built-in kind: its verbs sorted, as {@code endpoints/installer.go} lists them
   *                        ({@code create, delete, deletecollection, get, list, patch, update, watch}); false: a
   *                        custom resource's order ({@link #VERBS})
   * @return one entry per served version, in manifest order
   */
  public static List<ServedGroupVersion> groupVersions(CrdDefinition crd, int groupPriority, int versionPriority,
                                                       java.util.function.Predicate<String> verbs, boolean sorted) {
    List<String> served = sorted ? VERBS.stream().filter(verbs).sorted().toList()
        : VERBS.stream().filter(verbs).toList();
    String hash = storageVersionHash(crd.group(), crd.storageVersion().name(), crd.kind());
    List<ServedGroupVersion> out = new ArrayList<>();
    for (CrdVersion v : crd.servedVersions()) {
      List<DiscoverySubresource> subs = new ArrayList<>();
      if (v.statusEnabled()) {
        subs.add(new DiscoverySubresource("status", new ResponseKind(crd.group(), v.name(), crd.kind()),
            SUBRESOURCE_VERBS));
      }
      if (v.scale() != null) {
        subs.add(new DiscoverySubresource("scale", new ResponseKind("autoscaling", "v1", "Scale"),
            SUBRESOURCE_VERBS));
      }
      DiscoveryResource r = new DiscoveryResource(crd.plural(), crd.singular(),
          new ResponseKind(crd.group(), v.name(), crd.kind()), crd.namespaced(), served, crd.shortNames(),
          crd.categories(), subs, hash);
      out.add(new ServedGroupVersion(new GroupVersion(crd.group(), v.name()), groupPriority, versionPriority,
          List.of(r), Freshness.Current));
    }
    return out;
  }

  /**
   * Legacy {@code storageVersionHash}: base64 of the first 8 bytes of SHA-256 of {@code group/version/kind}
   * (apiserver {@code pkg/endpoints/discovery/storageversionhash.go}).
   */
  public static String storageVersionHash(String group, String version, String kind) {
    try {
      byte[] sum = MessageDigest.getInstance("SHA-256")
          .digest((group + "/" + version + "/" + kind).getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(Arrays.copyOf(sum, 8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
