/**
 * The controller manager every mvproxy node runs, active on one node at a time (kube-controller-manager's
 * leader election on a {@code coordination.k8s.io/v1} Lease): the namespace controller and the garbage collector.
 * Everything they read or write goes through the node's own API ({@link io.mvproxy.controllers.ApiClient}: HTTPS to
 * the node itself, authenticated, authorized, routed and peer-proxied like any client's request), never to storage.
 */
package io.mvproxy.controllers;
