package io.mvproxy.registry.impl.rest;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Per-kind behaviour layered on the shared REST surface, as kube-apiserver's {@code rest.RESTCreateStrategy} /
 * {@code RESTUpdateStrategy} and admission plugins are layered on its generic registry
 * ({@code apiserver/pkg/registry/generic/registry/store.go}): built-in kinds (namespaces, RBAC, secrets) and the
 * NamespaceLifecycle check of every namespaced kind plug in here. Every method may throw a
 * {@link io.mvproxy.api.StatusException}, which is answered as is and leaves storage unchanged.
 */
public interface ObjectStrategy {
  /** No per-kind behaviour. */
  ObjectStrategy NONE = new ObjectStrategy() {
  };

  /**
   * Admission of a create, before anything is stored (e.g. NamespaceLifecycle: 404 for a missing namespace, 403
   * for a Terminating one; RBAC escalation checks).
   *
   * @param req the request
   * @param obj the object about to be created (prepared, not yet validated)
   * @return completes when admitted; fails with a StatusException otherwise
   */
  default Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    return Future.succeededFuture();
  }

  /**
   * The checks and normalisation the typed JSON decoder of a built-in kind makes on a create or update body (e.g.
   * a Secret's {@code data} values are base64), after {@link ObjectRules#decode}.
   *
   * @param req the request
   * @param obj the decoded body (may be changed and returned)
   * @return the object as the typed decoder would have read it
   * @throws io.mvproxy.api.StatusException 400 BadRequest as {@link ObjectRules#decodeError}
   */
  default JsonObject decodeBody(CrdRequest req, JsonObject obj) {
    return obj;
  }

  /**
   * Reads the fields of a typed kind that the type checks ({@link TypedFields}) do not know, as kube-apiserver's
   * typed decoder reads them, on every create or update body and every patch result (from
   * {@link ObjectRules#checkIdentity}); e.g. {@code metav1.Time} values parsed with Go's {@code time.Parse} and
   * rewritten in Go's output form.
   *
   * @param req the request (its kind)
   * @param obj the object, in the request's version (may be changed in place)
   * @return null when it decodes, else the decoder's error text, answered as {@code 400} {@link
   *     ObjectRules#decodeError}; the default: null
   */
  default String readTypedFields(CrdRequest req, JsonObject obj) {
    return null;
  }

  /**
   * Whether the kind is decoded into a typed (Go) object, as kube-apiserver's built-in kinds are: a JSON value of the
   * wrong type in one of the kind's own top-level fields is then a {@code 400 BadRequest} decoding error ({@code
   * json: cannot unmarshal number into Go struct field ConfigMap.data of type string}, {@link TypedFields}) rather
   * than the schema's {@code 422} a custom resource gets (apiextensions validates its unstructured objects).
   *
   * @param field a top-level field of the kind (not {@code apiVersion}, {@code kind}, {@code metadata})
   * @return the Go type name of the field's value as the typed decoder reports it (e.g. {@code v1.SecretType}), or
   *     null to derive it from the schema; the default: null
   */
  default String goTypeName(String field) {
    return null;
  }

  /**
   * @return true when the kind is decoded into a typed object (built-in kinds, {@link #goTypeName}); false (the
   *     default) for custom resources
   */
  default boolean typedDecoding() {
    return false;
  }

  /**
   * @return true when a create or update body must carry its {@code kind}: custom resources, which kube-apiserver
   *     decodes into an {@code Unstructured} (apimachinery {@code runtime/serializer/json/json.go} answers a body
   *     without a string {@code kind} with {@code MissingKindErr}, a {@code 400}); false for typed kinds (built-in
   *     ones, code plugins' kinds), whose decoder takes the kind from the request. The default: not {@link
   *     #typedDecoding}
   */
  default boolean requiresKind() {
    return !typedDecoding();
  }

  /**
   * The kind's name rule (the {@code nameFn} its upstream validation passes to {@code ValidateObjectMeta}).
   *
   * @param name a non-empty object name
   * @return the rule's messages (empty when valid), or null for the default {@code IsDNS1123Subdomain}
   *     ({@link ObjectMetaValidator#dns1123Subdomain})
   */
  default java.util.List<String> nameProblems(String name) {
    return null;
  }

  /**
   * The kind's name rule for a {@code generateName} (the same {@code nameFn} called with {@code prefix=true}):
   * by default {@link #nameProblems} of the prefix with its trailing '-' masked
   * ({@link ObjectMetaValidator#maskTrailingDash}).
   *
   * @param prefix a non-empty {@code generateName}
   * @return the rule's messages (empty when valid), or null for the default {@code IsDNS1123Subdomain}
   */
  default java.util.List<String> prefixProblems(String prefix) {
    return nameProblems(ObjectMetaValidator.maskTrailingDash(prefix));
  }

  /**
   * The kind's own field errors of an object (a code kind's {@code KindStrategy.validate} / {@code validateUpdate}:
   * a ConfigMap's data keys, a Role's rules), without throwing: {@link ObjectRules} lists them after the metadata's
   * errors, as kube's {@code Validate<Kind>} appends them to {@code ValidateObjectMeta}'s, when it answers a write
   * whose metadata is invalid. Must only read the object.
   *
   * @param req     the request
   * @param obj     the object (storage form; the generic preparation done, possibly not the kind's own)
   * @param oldView the stored object as the request's version sees it for an update, null for a create
   * @return the errors as {@code details.causes} entries ({@code reason}, {@code message}, {@code field}), in the
   *     kind's order; the default: none
   */
  default io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return new io.vertx.core.json.JsonArray();
  }

  /**
   * Whether the kind's metadata is checked by core's {@code ValidateObjectMeta} / {@code ValidateObjectMetaUpdate}
   * ({@code pkg/apis/core/validation}: core kinds and RBAC), which also refuses a finalizer without a {@code /} that
   * is not a standard one ({@code kubernetes}, {@code orphan}, {@code foregroundDeletion}):
   * {@code metadata.finalizers[0]: Invalid value: "foo": name is neither a standard finalizer name nor is it fully
   * qualified}; custom resources and the other groups use apimachinery's, which does not.
   *
   * @return true for core's metadata rules; the default: false
   */
  default boolean kubeFinalizerNames() {
    return false;
  }

  /**
   * Whether the kind's own rules, when they fail, are answered alone rather than after the metadata's errors: core
   * {@code v1} Events ({@code ValidateEventCreate} runs no ObjectMeta validation for them; {@code rest.BeforeCreate}'s
   * generic metadata check runs only once the kind's passed).
   *
   * @return true to answer {@link #violations} alone when there are any; the default: false
   */
  default boolean kindRulesAlone() {
    return false;
  }

  /**
   * Whether an update validates the object's metadata again as a create does (the kind's upstream
   * {@code Validate...Update} calls its whole-object {@code Validate...}, so {@code ValidateObjectMeta} checks a
   * {@code generateName} set by the update: ConfigMap, Secret, ServiceAccount, RBAC, admission configurations), or
   * only {@code ValidateObjectMetaUpdate} (the default: custom resources, Namespace, CRD).
   *
   * @return true when a {@code generateName} is checked on update too (a bad one: 422 naming
   *     {@code metadata.generateName})
   */
  default boolean validatesMetaOnUpdate() {
    return false;
  }

  /**
   * Whether a {@code /status} update keeps the metadata changes it sends, the system fields and validation being an
   * update's ({@code namespaceStatusStrategy} resets only {@code spec}), or drops them (the default: a custom
   * resource's status strategy takes everything but {@code status} from the stored object).
   *
   * @return true to keep them
   */
  default boolean statusUpdatesMetadata() {
    return false;
  }

  /**
   * Adjusts a new object after the generic defaulting ({@code PrepareForCreate}).
   *
   * @param req the request
   * @param obj the object (may be changed and returned)
   * @return the object to validate and store
   */
  default JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return obj;
  }

  /**
   * Adjusts and checks an update ({@code PrepareForUpdate}, {@code ValidateUpdate}), on every attempt of a
   * guaranteed update, for PUT and PATCH of the object and of its {@code status}.
   *
   * @param req  the request
   * @param old  the stored object (do not change)
   * @param next the next object (may be changed and returned)
   * @return the object to validate and store
   */
  default JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return next;
  }

  /**
   * Whether the kind has validation too costly for an event loop ({@link #validateBlocking}), e.g. parsing a
   * CustomResourceDefinition, which compiles its CEL rules (seconds for big CRDs).
   *
   * @return true to have {@link #validateBlocking} run on a worker thread for every create and update; false (the
   *     default) to skip it
   */
  default boolean validatesBlocking() {
    return false;
  }

  /**
   * Validation run on a worker thread (never an event loop) after {@link #prepareCreate} / {@link #prepareUpdate},
   * before admission and storage (upstream's {@code strategy.Validate} / {@code ValidateUpdate}), only when
   * {@link #validatesBlocking()}; on an update it runs once per attempt of the guaranteed update. It must only read
   * its arguments.
   *
   * @param req the request
   * @param old the stored object (do not change), or null for a create
   * @param obj the prepared object (do not change)
   * @throws io.mvproxy.api.StatusException e.g. 422 Invalid with causes; answered as is, nothing stored
   */
  default void validateBlocking(CrdRequest req, JsonObject old, JsonObject obj) {
  }

  /**
   * Decides a DELETE of one object before the generic path (finalizers, removal).
   *
   * @param req     the request
   * @param current the stored object
   * @return null for the generic path, or the object to store instead of deleting (answered 200 with it), e.g. a
   *     namespace turned Terminating
   */
  default JsonObject onDelete(CrdRequest req, JsonObject current) {
    return null;
  }

  /**
   * Extra subresources of the kind, beyond {@code status} and {@code scale} (namespaces: {@code finalize}), served
   * by the generic update path with {@link #prepareUpdate} deciding what changes.
   *
   * @param subresource the subresource
   * @param verb        the verb
   * @return true when the kind serves it for that verb
   */
  default boolean servesSubresource(String subresource, String verb) {
    return false;
  }

  /**
   * Whether an update that leaves a deleting object without {@code metadata.finalizers} removes it (upstream's
   * {@code Store.ShouldDeleteDuringUpdate}; namespaces also wait for an empty {@code spec.finalizers}).
   *
   * @param next the object the update would store
   * @return true to delete it instead of storing it
   */
  default boolean deleteDuringUpdate(JsonObject next) {
    return true;
  }

  /**
   * The object as returned to clients (e.g. write-only fields removed).
   *
   * @param obj the object as stored (a copy the method may change)
   * @return the object to send
   */
  default JsonObject present(JsonObject obj) {
    return obj;
  }

  /**
   * Whether the server sets {@code metadata.generation} (1 on create, + 1 when the spec changes), as the strategies of
   * custom resources and of kube-apiserver's kinds with a spec (Deployment, Ingress, CustomResourceDefinition) do;
   * kinds without spec semantics (ConfigMap, Secret, Namespace, ServiceAccount, Lease, RBAC) leave it as the client
   * sent it.
   *
   * @return true to set it (the default)
   */
  default boolean setsGeneration() {
    return true;
  }

  /**
   * Whether a PUT without {@code metadata.resourceVersion} updates whatever is stored ({@code rest.RESTUpdateStrategy
   * AllowUnconditionalUpdate}; most built-in kinds: ConfigMap, Secret, Namespace, ServiceAccount, Event, RBAC) instead
   * of failing {@code 422} ("must be specified for an update"), as custom resources, Leases, CRDs, APIServices and the
   * admission kinds do.
   *
   * @return true to update unconditionally; false (the default) to require the resourceVersion
   */
  default boolean allowUnconditionalUpdate() {
    return false;
  }

  /**
   * Whether a PUT of an absent object creates it ({@code AllowCreateOnUpdate}: Roles, bindings, Leases, Events), with
   * a {@code 201}, create admission, and the {@code create} verb authorized besides {@code update}; false (the
   * default): {@code 404 NotFound}.
   *
   * @return true to create on update
   */
  default boolean allowCreateOnUpdate() {
    return false;
  }

  /**
   * Converts an object as stored into this kind's version before anything reads it (answers, patches, updates),
   * for kinds stored in another group's shape: {@code events.k8s.io/v1} events are stored as core {@code v1} events,
   * as kube-apiserver keeps one {@code /registry/events} for both ({@code pkg/apis/events/v1/conversion.go}). The
   * way back belongs in {@link #prepareCreate} / {@link #prepareUpdate}.
   *
   * @param stored the stored object (a copy the method may change)
   * @return the object in this kind's shape (the default: {@code stored})
   */
  default JsonObject fromStorage(JsonObject stored) {
    return stored;
  }

  /**
   * @return false for kinds whose kube-apiserver Table has no leading {@code Name} column (events: {@code Name} is
   *     their last, priority 1 column); the default true
   */
  default boolean tableNameColumn() {
    return true;
  }

  /**
   * The kind's strategic-merge-patch metadata (its Go struct tags): built-in kinds have it, custom resources do not
   * and answer {@code application/strategic-merge-patch+json} with 415, as upstream.
   *
   * @return the metadata, or null (the default) when the kind does not accept strategic merge patch
   */
  default PatchMeta strategicMergePatch() {
    return null;
  }

  /**
   * Whether the kind serves a verb at all (a read-only kind serves {@code get}, {@code list}, {@code watch}); a
   * verb it does not serve is left out of discovery and answered {@code 405 MethodNotAllowed}, as kube-apiserver
   * answers a method its REST storage does not implement ({@code endpoints/installer.go} installs no route).
   *
   * @param verb a Kubernetes verb ({@code create}, {@code deletecollection}, ...)
   * @return true when served (the default: every verb)
   */
  default boolean allowsVerb(String verb) {
    return true;
  }

  /**
   * A Table cell of a printer column, for kinds whose kube-apiserver printer computes cells a JSONPath cannot
   * express ({@code pkg/printers/internalversion/printers.go}: counts of keys, {@code Kind/name} references).
   *
   * @param column the column's name (as in the kind's {@code additionalPrinterColumns})
   * @param obj    the object as returned to the client
   * @param cell   the cell computed from the column's JSONPath and type (may be null)
   * @return the cell to send (the default: {@code cell})
   */
  default Object tableCell(String column, JsonObject obj, Object cell) {
    return cell;
  }

  /**
   * Fields besides {@code metadata.name} and {@code metadata.namespace} that a {@code fieldSelector} may name, as
   * upstream's per-kind {@code GetAttrs} / {@code ToSelectableFields} (e.g. core events' {@code involvedObject.name},
   * {@code pkg/registry/core/event/strategy.go}).
   *
   * @return field label to the dotted path of its value in the object; null for a custom resource (only the two
   *     metadata fields, with apiextensions' error text), a map (maybe empty) for a built-in kind (kube's
   *     {@code field label not supported} text)
   */
  default java.util.Map<String, String> selectableFields() {
    return null;
  }

  /**
   * Combines two strategies: {@code this} first, then {@code next}.
   *
   * @param next the second strategy
   * @return both in order
   */
  default ObjectStrategy then(ObjectStrategy next) {
    ObjectStrategy first = this;
    return new ObjectStrategy() {
      @Override
      public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
        return first.admitCreate(req, obj).compose(v -> next.admitCreate(req, obj));
      }

      @Override
      public JsonObject decodeBody(CrdRequest req, JsonObject obj) {
        return next.decodeBody(req, first.decodeBody(req, obj));
      }

      @Override
      public String readTypedFields(CrdRequest req, JsonObject obj) {
        String err = first.readTypedFields(req, obj);
        return err != null ? err : next.readTypedFields(req, obj);
      }

      @Override
      public java.util.List<String> nameProblems(String name) {
        java.util.List<String> a = first.nameProblems(name);
        return a != null ? a : next.nameProblems(name);
      }

      @Override
      public java.util.List<String> prefixProblems(String prefix) {
        java.util.List<String> a = first.prefixProblems(prefix);
        return a != null ? a : next.prefixProblems(prefix);
      }

      @Override
      public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
        return first.violations(req, obj, oldView).copy().addAll(next.violations(req, obj, oldView));
      }

      @Override
      public boolean kubeFinalizerNames() {
        return first.kubeFinalizerNames() || next.kubeFinalizerNames();
      }

      @Override
      public boolean kindRulesAlone() {
        return first.kindRulesAlone() || next.kindRulesAlone();
      }

      @Override
      public boolean validatesMetaOnUpdate() {
        return first.validatesMetaOnUpdate() || next.validatesMetaOnUpdate();
      }

      @Override
      public boolean statusUpdatesMetadata() {
        return first.statusUpdatesMetadata() || next.statusUpdatesMetadata();
      }

      @Override
      public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
        return next.prepareCreate(req, first.prepareCreate(req, obj));
      }

      @Override
      public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject n) {
        return next.prepareUpdate(req, old, first.prepareUpdate(req, old, n));
      }

      @Override
      public boolean typedDecoding() {
        return first.typedDecoding() || next.typedDecoding();
      }

      @Override
      public boolean requiresKind() {
        return first.requiresKind() && next.requiresKind();
      }

      @Override
      public String goTypeName(String field) {
        String a = first.goTypeName(field);
        return a != null ? a : next.goTypeName(field);
      }

      @Override
      public boolean validatesBlocking() {
        return first.validatesBlocking() || next.validatesBlocking();
      }

      @Override
      public void validateBlocking(CrdRequest req, JsonObject old, JsonObject obj) {
        first.validateBlocking(req, old, obj);
        next.validateBlocking(req, old, obj);
      }

      @Override
      public JsonObject onDelete(CrdRequest req, JsonObject current) {
        JsonObject r = first.onDelete(req, current);
        return r != null ? r : next.onDelete(req, current);
      }

      @Override
      public JsonObject present(JsonObject obj) {
        return next.present(first.present(obj));
      }

      @Override
      public boolean servesSubresource(String subresource, String verb) {
        return first.servesSubresource(subresource, verb) || next.servesSubresource(subresource, verb);
      }

      @Override
      public PatchMeta strategicMergePatch() {
        PatchMeta m = first.strategicMergePatch();
        return m != null ? m : next.strategicMergePatch();
      }

      @Override
      public boolean setsGeneration() {
        return first.setsGeneration() && next.setsGeneration();
      }

      @Override
      public boolean allowUnconditionalUpdate() {
        return first.allowUnconditionalUpdate() || next.allowUnconditionalUpdate();
      }

      @Override
      public boolean allowCreateOnUpdate() {
        return first.allowCreateOnUpdate() || next.allowCreateOnUpdate();
      }

      @Override
      public java.util.Map<String, String> selectableFields() {
        java.util.Map<String, String> a = first.selectableFields();
        java.util.Map<String, String> b = next.selectableFields();
        if (a == null || b == null) {
          return a == null ? b : a;
        }
        java.util.Map<String, String> both = new java.util.LinkedHashMap<>(a);
        both.putAll(b);
        return both;
      }

      @Override
      public JsonObject fromStorage(JsonObject stored) {
        return next.fromStorage(first.fromStorage(stored));
      }

      @Override
      public boolean tableNameColumn() {
        return first.tableNameColumn() && next.tableNameColumn();
      }

      @Override
      public boolean allowsVerb(String verb) {
        return first.allowsVerb(verb) && next.allowsVerb(verb);
      }

      @Override
      public Object tableCell(String column, JsonObject obj, Object cell) {
        return next.tableCell(column, obj, first.tableCell(column, obj, cell));
      }

      @Override
      public boolean deleteDuringUpdate(JsonObject n) {
        return first.deleteDuringUpdate(n) && next.deleteDuringUpdate(n);
      }
    };
  }
}
