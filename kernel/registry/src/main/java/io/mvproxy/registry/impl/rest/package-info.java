/**
 * The REST surface of a custom resource (api-surface.md): one class per concern (reads, writes, patches, deletes,
 * watches, tables, selectors, pruning), dispatched by {@link io.mvproxy.registry.impl.rest.CrdRouter}.
 */
package io.mvproxy.registry.impl.rest;
