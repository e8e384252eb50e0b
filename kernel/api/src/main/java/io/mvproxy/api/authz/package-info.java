/**
 * Authorization types offered to API sources (kube-apiserver's {@code k8s.io/apiserver/pkg/authorization/authorizer}
 * and {@code k8s.io/api/rbac/v1} {@code PolicyRule}): request attributes, decisions and the node's
 * {@link io.mvproxy.api.authz.AccessControl} service (access reviews, escalation checks).
 */
package io.mvproxy.api.authz;
