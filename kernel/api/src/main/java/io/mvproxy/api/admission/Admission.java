package io.mvproxy.api.admission;

import io.mvproxy.api.UserInfo;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The dynamic admission of a node (kube-apiserver's {@code MutatingAdmissionWebhook} and
 * {@code ValidatingAdmissionWebhook} plugins, {@code apiserver/pkg/admission/plugin/webhook}), run by the node that
 * serves a resource on every create, update, patch and delete, after NamespaceLifecycle: {@link #mutate} before the
 * schema validation, {@link #validate} after it. A request proxied to a peer is admitted there only, once.
 */
public interface Admission {
  /**
   * What a webhook is told about one request ({@code admission.Attributes}).
   *
   * @param group              the request's resource group ({@code ""} for core)
   * @param version            the request's version
   * @param resource           the resource (plural)
   * @param subresource        the subresource ({@code ""} for the object itself)
   * @param kind               the object's kind
   * @param namespace          the namespace ({@code ""} for cluster-scoped objects)
   * @param name               the object's name ({@code ""} when not known yet: generateName)
   * @param operation          {@code CREATE}, {@code UPDATE} or {@code DELETE}
   * @param object             the new object in the request's version (null for DELETE)
   * @param oldObject          the stored object in the request's version (null for CREATE)
   * @param options            the operation's options ({@code meta.k8s.io/v1} CreateOptions, UpdateOptions,
   *                           PatchOptions or DeleteOptions)
   * @param dryRun             true for {@code dryRun=All}
   * @param user               the original caller (on a proxied request: the front-proxy identity)
   * @param namespaced         true for a namespaced resource
   * @param equivalentVersions the other versions serving the same objects (for {@code matchPolicy: Equivalent})
   * @param warnings           receives the warnings for the client (a webhook's {@code response.warnings}, a
   *                           policy's {@code Warn} action), sent as {@code Warning: 299 - "..."} headers
   * @param annotations        receives audit annotations (key, value): a webhook's {@code response.auditAnnotations}
   *                           as {@code <webhook name>/<key>}, a policy's {@code Audit} failures and
   *                           {@code auditAnnotations} ({@code admission.Attributes.AddAnnotation})
   */
  record Attributes(String group, String version, String resource, String subresource, String kind,
                    String namespace, String name, String operation, JsonObject object, JsonObject oldObject,
                    JsonObject options, boolean dryRun, UserInfo user, boolean namespaced,
                    List<String> equivalentVersions, java.util.function.Consumer<String> warnings,
                    java.util.function.BiConsumer<String, String> annotations) {
    /** Copies the list; a null warnings or annotations sink drops them. */
    public Attributes {
      equivalentVersions = List.copyOf(equivalentVersions);
      warnings = warnings == null ? w -> { } : warnings;
      annotations = annotations == null ? (k, v) -> { } : annotations;
    }

    /** The attributes without an annotations sink (audit annotations are dropped). */
    public Attributes(String group, String version, String resource, String subresource, String kind,
                      String namespace, String name, String operation, JsonObject object, JsonObject oldObject,
                      JsonObject options, boolean dryRun, UserInfo user, boolean namespaced,
                      List<String> equivalentVersions, java.util.function.Consumer<String> warnings) {
      this(group, version, resource, subresource, kind, namespace, name, operation, object, oldObject, options, dryRun,
          user, namespaced, equivalentVersions, warnings, null);
    }

    /** The attributes without a warnings sink (warnings are dropped). */
    public Attributes(String group, String version, String resource, String subresource, String kind,
                      String namespace, String name, String operation, JsonObject object, JsonObject oldObject,
                      JsonObject options, boolean dryRun, UserInfo user, boolean namespaced,
                      List<String> equivalentVersions) {
      this(group, version, resource, subresource, kind, namespace, name, operation, object, oldObject, options, dryRun,
          user, namespaced, equivalentVersions, null, null);
    }

    /**
     * @param next the object after a mutation
     * @return these attributes with {@code object} replaced
     */
    public Attributes withObject(JsonObject next) {
      return new Attributes(group, version, resource, subresource, kind, namespace, name, operation, next,
          oldObject, options, dryRun, user, namespaced, equivalentVersions, warnings, annotations);
    }
  }

  /**
   * @return true when at least one webhook configuration exists (callers take their slower, asynchronous path only
   *     then)
   */
  boolean active();

  /**
   * Runs the matching mutating webhooks in name order (and once more for {@code reinvocationPolicy: IfNeeded}).
   *
   * @param a the request
   * @return the object after every patch (the same instance when nothing changed); fails with a
   *     {@link io.mvproxy.api.StatusException}: the webhook's denial (its code, default 400) or 500 InternalError
   *     {@code failed calling webhook} for a failing webhook with {@code failurePolicy: Fail}
   */
  Future<JsonObject> mutate(Attributes a);

  /**
   * Runs the matching validating webhooks (in parallel).
   *
   * @param a the request, with the object as it will be stored
   * @return completes when every webhook allowed it; fails as {@link #mutate}
   */
  Future<Void> validate(Attributes a);
}
