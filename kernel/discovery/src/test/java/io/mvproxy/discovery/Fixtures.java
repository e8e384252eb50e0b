package io.mvproxy.discovery;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/** CRD-like inputs (discovery.md section 7) shared by the tests. */
final class Fixtures {
  static final List<String> CRD_VERBS =
      List.of("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch");
  static final List<String> SUB_VERBS = List.of("get", "patch", "update");

  private Fixtures() {
  }

  /** A CRD-like resource, as crd-source would describe it. */
  static DiscoveryResource crd(String group, String version, String plural, String kind, boolean namespaced,
                               List<String> shortNames, boolean status, boolean scale, String storageVersion) {
    ResponseKind rk = new ResponseKind(group, version, kind);
    List<DiscoverySubresource> subs = new java.util.ArrayList<>();
    if (status) {
      subs.add(new DiscoverySubresource("status", rk, SUB_VERBS));
    }
    if (scale) {
      subs.add(new DiscoverySubresource("scale", new ResponseKind("autoscaling", "v1", "Scale"), SUB_VERBS));
    }
    return new DiscoveryResource(plural, kind.toLowerCase(), rk, namespaced, CRD_VERBS, shortNames,
        List.of("all"), subs, hash(group + "/" + storageVersion + "/" + kind));
  }

  static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(Arrays.copyOf(d, 8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static DiscoveryResource crontabs(String version) {
    return crd("stable.example.com", version, "crontabs", "CronTab", true, List.of("ct"), true, true, "v1");
  }

  static DiscoveryResource clusterfoos(String version) {
    return new DiscoveryResource("clusterfoos", "clusterfoo", new ResponseKind("stable.example.com", version,
        "ClusterFoo"), false, CRD_VERBS, List.of("cf"), List.of(), List.of(), hash("stable.example.com/v1/ClusterFoo"));
  }

  static DiscoveryResource widgets(String version) {
    return crd("widgets.example.io", version, "widgets", "Widget", true, List.of("wd"), true, false, version);
  }

  static ServedGroupVersion crdGv(String group, String version, Freshness f, DiscoveryResource... rs) {
    return new ServedGroupVersion(new GroupVersion(group, version), 1000, 100, List.of(rs), f);
  }

  static ServedGroupVersion core() {
    ResponseKind cm = new ResponseKind("", "v1", "ConfigMap");
    ResponseKind ns = new ResponseKind("", "v1", "Namespace");
    return new ServedGroupVersion(new GroupVersion("", "v1"), 18000, 1, List.of(
        new DiscoveryResource("namespaces", "namespace", ns, false, List.of("create", "delete", "get", "list",
            "patch", "update", "watch"), List.of("ns"), List.of(), List.of(new DiscoverySubresource("status", ns,
            SUB_VERBS)), "Q3oi5N2YM8M="),
        new DiscoveryResource("configmaps", "configmap", cm, true, List.of("create", "delete", "deletecollection",
            "get", "list", "patch", "update", "watch"), List.of("cm"), List.of(), List.of(), "qFsyl6wFWjQ=")),
        Freshness.Current);
  }

  /** Node A: core, crontabs v1 + v1beta1, clusterfoos v1, widgets v1. */
  static List<ServedGroupVersion> nodeA() {
    return List.of(core(),
        crdGv("stable.example.com", "v1beta1", Freshness.Current, crontabs("v1beta1")),
        crdGv("stable.example.com", "v1", Freshness.Current, crontabs("v1"), clusterfoos("v1")),
        crdGv("widgets.example.io", "v1", Freshness.Current, widgets("v1")));
  }

  /** Node B: core, crontabs v1, widgets v1 + v2, metrics v1beta1 (an APIService, priority 100/100). */
  static List<ServedGroupVersion> nodeB() {
    ResponseKind nm = new ResponseKind("metrics.k8s.io", "v1beta1", "NodeMetrics");
    return List.of(core(),
        crdGv("stable.example.com", "v1", Freshness.Current, crontabs("v1")),
        crdGv("widgets.example.io", "v1", Freshness.Current, widgets("v1")),
        crdGv("widgets.example.io", "v2", Freshness.Current, widgets("v2")),
        new ServedGroupVersion(new GroupVersion("metrics.k8s.io", "v1beta1"), 100, 100, List.of(
            new DiscoveryResource("nodes", "", nm, false, List.of("get", "list"), List.of(), List.of(), List.of(),
                null)), Freshness.Current));
  }
}
