/**
 * The registry's internals: kind sources over the storage ({@link io.mvproxy.registry.impl.CrdApiSource},
 * {@link io.mvproxy.registry.impl.Kinds}, {@link io.mvproxy.registry.impl.CodeKinds} behind the public
 * {@link io.mvproxy.registry.Registry}), and in sub-packages the REST handlers ({@code rest}), schema validation
 * ({@code schema}), admission ({@code admission}), conversion ({@code conversion}) and the CRD-shaped kind model
 * ({@code model}). Used by the kernel and by the plugins shipped inside the node ({@code builtin-apis},
 * {@code crd-source}); not an API for plugin jars, whose class loader refuses these packages.
 */
package io.mvproxy.registry.impl;
