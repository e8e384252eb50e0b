/**
 * Dynamic admission: {@code admissionregistration.k8s.io/v1} webhook configurations (defaults, validation),
 * matching, the AdmissionReview v1 codec and the dispatcher that calls the webhooks (kube-apiserver's
 * {@code apiserver/pkg/admission/plugin/webhook}).
 */
package io.mvproxy.registry.impl.admission;
