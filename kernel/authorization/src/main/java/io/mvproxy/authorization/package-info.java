/**
 * Authorization as kube-apiserver does it: the RBAC authorizer over an in-memory {@link
 * io.mvproxy.authorization.RbacIndex} (fed by a storage watch), the bootstrap policy, escalation checks, the
 * {@code --authorization-mode} chain and impersonation.
 */
package io.mvproxy.authorization;
