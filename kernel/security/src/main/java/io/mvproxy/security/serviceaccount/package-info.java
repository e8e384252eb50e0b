/**
 * Service account tokens as kube-apiserver has them ({@code pkg/serviceaccount}): signed JWTs bound to a
 * ServiceAccount's uid, issued by the TokenRequest API and accepted as bearer tokens on every node that shares the
 * verification keys.
 */
package io.mvproxy.security.serviceaccount;
