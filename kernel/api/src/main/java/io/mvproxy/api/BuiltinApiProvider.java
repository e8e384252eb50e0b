package io.mvproxy.api;

/**
 * Provides the node's built-in API set (namespaces, configmaps, secrets, RBAC, ..., the objects every Kubernetes API
 * server serves). The node finds exactly one with {@link java.util.ServiceLoader} on its class path
 * ({@code META-INF/services/io.mvproxy.api.BuiltinApiProvider}), so the kernel compiles against no plugin; the
 * {@code builtin-apis} module is the one shipped. Unlike plugin jars it is created once per node and never unloaded.
 */
public interface BuiltinApiProvider {

  /**
   * Creates and starts the built-in API set.
   *
   * @param context the node's services; typed node services (authorization, tokens) through
   *                {@link ApiSourceContext#service(Class)}; its {@code namespaceLifecycle()} answers with
   *                {@link BuiltinApiSet#namespaces()} of the result once the node wired it
   * @return the set, starting (see {@link BuiltinApiSet#started()})
   * @throws IllegalStateException when a required node service is missing
   */
  BuiltinApiSet create(ApiSourceContext context);
}
