package io.mvproxy.aggregated;

import io.mvproxy.api.GroupVersion;

/**
 * A validated {@code apiregistration.k8s.io/v1 APIService} (kube-aggregator {@code pkg/apis/apiregistration/types.go}),
 * as produced by {@link ApiServiceValidation#parse}.
 *
 * @param name                  {@code metadata.name}, always {@code <version>.<group>}
 * @param group                 {@code spec.group}
 * @param version               {@code spec.version}
 * @param groupPriorityMinimum  {@code spec.groupPriorityMinimum}, 1..20000
 * @param versionPriority       {@code spec.versionPriority}, 1..1000
 * @param serviceNamespace      {@code spec.service.namespace}
 * @param serviceName           {@code spec.service.name}
 * @param servicePort           {@code spec.service.port}, 1..65535 (443 when omitted)
 * @param caBundlePem           PEM text decoded from the base64 {@code spec.caBundle}, or null
 * @param insecureSkipTlsVerify {@code spec.insecureSkipTLSVerify}
 */
public record ApiServiceSpec(String name, String group, String version, int groupPriorityMinimum,
                             int versionPriority, String serviceNamespace, String serviceName, int servicePort,
                             String caBundlePem, boolean insecureSkipTlsVerify) {

  /** @return the group-version this APIService serves */
  public GroupVersion groupVersion() {
    return new GroupVersion(group, version);
  }

  /** @return true for a local APIService (no {@code spec.service}: nothing to proxy to) */
  public boolean local() {
    return serviceName.isEmpty();
  }

  /** @return {@code namespace/name:port}, the key of the node's {@code serviceResolution} configuration */
  public String serviceKey() {
    return serviceNamespace + "/" + serviceName + ":" + servicePort;
  }
}
