/**
 * The built-in API source every node serves (its API set is explicit in {@link io.mvproxy.builtin.BuiltinApis}):
 * access reviews ({@code authorization.k8s.io/v1}) and self subject / token reviews ({@code authentication.k8s.io}).
 */
package io.mvproxy.builtin;
