/**
 * Cluster-wide storage of custom objects in Hazelcast (one IMap per CRD, compare-and-set writes, a fleet-wide
 * resourceVersion counter) and the bounded event window that feeds watches.
 */
package io.mvproxy.crd.store;
