/**
 * A sample extension API server like kubernetes/sample-apiserver: {@code wardle.example.com/v1alpha1} namespaced
 * {@code flunders}, in memory, over HTTPS, behind an aggregator that sends front-proxy identity headers. Entry points:
 * {@link io.mvproxy.example.wardle.SampleApiServer#main(String[])} and
 * {@link io.mvproxy.example.wardle.SampleApiServer#start(io.vertx.core.Vertx, SampleApiServerOptions)}. Depends on
 * Vert.x only (no mvproxy module).
 */
package io.mvproxy.example.wardle;
