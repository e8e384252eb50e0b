/** Typed event-bus messages: node-local ones by instance ({@link io.mvproxy.node.bus.LocalCodec}), cluster-wide ones as JSON through records ({@link io.mvproxy.node.bus.Announcements}). */
package io.mvproxy.node.bus;
