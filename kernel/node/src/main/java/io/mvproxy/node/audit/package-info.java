/**
 * The audit log, as kube-apiserver's ({@code staging/src/k8s.io/apiserver/pkg/audit}): the {@code audit.k8s.io/v1}
 * policy and its checker ({@link io.mvproxy.node.audit.AuditPolicy}), the event ({@link io.mvproxy.node.audit.AuditEvent}),
 * the handler-chain steps that record it ({@link io.mvproxy.node.audit.AuditFilter}) and the log backend with
 * rotation ({@link io.mvproxy.node.audit.AuditLogBackend}, {@link io.mvproxy.node.audit.RotatingFile}).
 */
package io.mvproxy.node.audit;
