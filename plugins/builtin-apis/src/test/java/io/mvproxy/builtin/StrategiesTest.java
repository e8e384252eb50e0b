package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The per-kind rules of the built-in kinds, on their own (the fleet test covers them through HTTP). */
@Tag("unit")
class StrategiesTest {
  static CrdRequest request(String plural, String method, String path, ObjectStrategy s) {
    CrdDefinition crd = CrdParser.parseBuiltIn(BuiltinKinds.manifest(plural));
    return new CrdRequest(null, RequestInfo.parse(method, path, null),
        new UserInfo("admin", "", List.of("system:masters"), Map.of()), crd, crd.storageVersion(), s);
  }

  static JsonObject cm(String data) {
    return new JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":"
        + data + "}");
  }

  /**
   * Go's {@code omitempty} collections are never written: an empty {@code labels}, {@code annotations},
   * {@code ownerReferences}, {@code finalizers}, {@code generateName} (ObjectMeta) or {@code data} (ConfigMap) is not stored, on create
   * and on update, so {@code kubectl diff} of an unchanged object finds nothing (a helper saw {@code +annotations: {}}).
   */
  @Test
  void emptyOmitemptyCollectionsAreNotStored() {
    ConfigData s = new ConfigData(false);
    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    CrdRequest create = request("configmaps", "POST", "/api/v1/namespaces/a/configmaps", s);
    JsonObject sent = new JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
        + "\"generateName\":\"\",\"namespace\":\"a\",\"labels\":{},\"annotations\":{},\"ownerReferences\":[],\"finalizers\":[]},"
        + "\"data\":{},\"binaryData\":{}}");
    JsonObject created = s.prepareCreate(create, rules.prepareCreate(create, sent));
    assertEquals(List.of("name", "namespace", "uid", "creationTimestamp"),
        List.copyOf(created.getJsonObject("metadata").fieldNames()));
    assertEquals(false, created.containsKey("data") || created.containsKey("binaryData"), created.encode());
    CrdRequest update = request("configmaps", "PUT", "/api/v1/namespaces/a/configmaps/c", s);
    JsonObject next = created.copy();
    next.getJsonObject("metadata").put("annotations", new JsonObject()).put("labels", new JsonObject().put("k", "v"));
    next.put("data", new JsonObject());
    JsonObject updated = s.prepareUpdate(update, created, rules.prepareUpdate(update, created, next));
    assertEquals(new JsonObject().put("k", "v"), updated.getJsonObject("metadata").getJsonObject("labels"));
    assertEquals(false, updated.getJsonObject("metadata").containsKey("annotations") || updated.containsKey("data"),
        updated.encode());
  }

  @Test
  void configMapKeysSizeAndImmutability() {
    ConfigData s = new ConfigData(false);
    CrdRequest create = request("configmaps", "POST", "/api/v1/namespaces/a/configmaps", s);
    s.prepareCreate(create, cm("{\"ok.key_1-x\":\"v\"}"));
    StatusException bad = assertThrows(StatusException.class, () -> s.prepareCreate(create, cm("{\"a/b\":\"v\"}")));
    assertEquals(422, bad.code());
    assertEquals("ConfigMap \"c\" is invalid: data[a/b]: Invalid value: \"a/b\": a valid config key must consist of "
        + "alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
        + "validation is '[-._a-zA-Z0-9]+')", bad.getMessage());
    StatusException big = assertThrows(StatusException.class, () -> s.prepareCreate(create,
        cm("{\"k\":\"" + "x".repeat(ConfigData.MAX_BYTES + 1) + "\"}")));
    assertEquals(422, big.code());
    // field.TooLong's text, as kube-apiserver's own metadata.annotations check (breakit: "must have at most")
    assertEquals("ConfigMap \"c\" is invalid: []: Too long: may not be more than 1048576 bytes", big.getMessage());
    JsonObject old = cm("{\"k\":\"v\"}").put("immutable", true);
    CrdRequest update = request("configmaps", "PUT", "/api/v1/namespaces/a/configmaps/c", s);
    s.prepareUpdate(update, old, old.copy());
    StatusException imm = assertThrows(StatusException.class, () -> s.prepareUpdate(update, old,
        cm("{\"k\":\"w\"}").put("immutable", true)));
    assertEquals("ConfigMap \"c\" is invalid: data: Forbidden: field is immutable when `immutable` is set",
        imm.getMessage());
  }

  /**
   * A built-in kind's write with invalid metadata lists the kind's own errors after the metadata's, as
   * {@code ValidateConfigMap} / {@code ValidateRole} append theirs to {@code ValidateObjectMeta}'s (a bad name hid the
   * data keys' and labels' errors).
   */
  @Test
  void invalidMetadataIsListedWithTheKindsOwnErrors() {
    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    CrdRequest cm = request("configmaps", "POST", "/api/v1/namespaces/a/configmaps", new ConfigData(false));
    JsonObject sent = new JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Bad_\","
        + "\"namespace\":\"a\",\"labels\":{\"k\":\"bad value\"}},\"data\":{\"a/b\":\"v\"}}");
    StatusException e = assertThrows(StatusException.class, () -> rules.prepareCreate(cm, sent));
    assertEquals(List.of("metadata.name", "metadata.labels", "data[a/b]"),
        causes(e).stream().map(c -> c.substring(0, c.indexOf(':'))).toList());
    assertEquals("a/b", sent.getJsonObject("data").fieldNames().iterator().next(), "only read");
    CrdRequest role = request("roles.rbac.authorization.k8s.io", "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles", new Rbac(null, false));
    JsonObject r = new JsonObject("{\"metadata\":{\"name\":\"a/b\",\"namespace\":\"a\"},"
        + "\"rules\":[{\"verbs\":[\"get\"]}]}");
    StatusException re = assertThrows(StatusException.class, () -> rules.prepareCreate(role, r));
    assertEquals("metadata.name: Invalid value: \"a/b\": may not contain '/'", causes(re).get(0));
    assertEquals(true, causes(re).size() > 1 && causes(re).get(1).startsWith("rules[0]."), causes(re).toString());
    CrdRequest vwc = request("validatingwebhookconfigurations.admissionregistration.k8s.io", "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", new WebhookConfigStrategy(false));
    JsonObject w = new JsonObject("{\"metadata\":{\"name\":\"Bad_\"},\"webhooks\":[{\"name\":\"nodots\","
        + "\"clientConfig\":{\"url\":\"https://127.0.0.1:1/x\"},\"admissionReviewVersions\":[\"v1\"],"
        + "\"sideEffects\":\"None\"}]}");
    StatusException we = assertThrows(StatusException.class, () -> rules.prepareCreate(vwc, w));
    assertEquals(true, causes(we).get(0).startsWith("metadata.name: ")
        && causes(we).stream().anyMatch(c -> c.startsWith("webhooks[0].name: ")), causes(we).toString());
    assertEquals(false, w.getJsonArray("webhooks").getJsonObject(0).containsKey("timeoutSeconds"), "only read");
    // the kind's own rules answer for it: no bare "Required value" of the schema standing in for them
    JsonObject w2 = new JsonObject("{\"metadata\":{\"name\":\"Bad_\"},\"webhooks\":[{\"name\":\"a.b.c\","
        + "\"clientConfig\":{\"url\":\"https://127.0.0.1:1/x\"}}]}");
    StatusException we2 = assertThrows(StatusException.class, () -> rules.prepareCreate(vwc, w2));
    assertEquals(true, causes(we2).stream().noneMatch(c -> c.endsWith(": Required value")), causes(we2).toString());
    assertEquals(true, causes(we2).stream().anyMatch(c -> c.startsWith("webhooks[0].sideEffects: Required value: ")),
        causes(we2).toString());
    // data keys are quoted as Go's %q
    JsonObject quoted = new JsonObject().put("metadata", new JsonObject().put("name", "c").put("namespace", "a"))
        .put("data", new JsonObject().put("a\"b\n", "v"));
    StatusException qe = assertThrows(StatusException.class, () -> new ConfigData(false).prepareCreate(cm, quoted));
    assertEquals(true, causes(qe).get(0).startsWith("data[a\"b\n]: Invalid value: \"a\\\"b\\n\": "), causes(qe).get(0));
  }

  /**
   * Core kinds and RBAC check their finalizer names with core's {@code ValidateObjectMeta}: one without a domain that
   * is not {@code kubernetes}, {@code orphan} or {@code foregroundDeletion} is refused, after apimachinery's checks.
   */
  @Test
  void coreKindsRefuseUnqualifiedFinalizersThatAreNotStandard() {
    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    CrdRequest cm = request("configmaps", "POST", "/api/v1/namespaces/a/configmaps",
        new ConfigData(false).then(new KindSemantics("configmaps")));
    JsonObject o = new JsonObject("{\"metadata\":{\"name\":\"c\",\"namespace\":\"a\",\"finalizers\":[\"foo\","
        + "\"kubernetes\",\"example.com/x\",\"bad finalizer\",\"orphan\"]}}");
    StatusException e = assertThrows(StatusException.class, () -> rules.prepareCreate(cm, o));
    assertEquals(List.of("metadata.finalizers", "metadata.finalizers[0]", "metadata.finalizers[3]"),
        causes(e).stream().map(c -> c.substring(0, c.indexOf(':'))).toList(), causes(e).toString());
    assertEquals("metadata.finalizers[0]: Invalid value: \"foo\": name is neither a standard finalizer name nor is it "
        + "fully qualified", causes(e).get(1));
    CrdRequest role = request("roles.rbac.authorization.k8s.io", "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles", new Rbac(null, false));
    assertThrows(StatusException.class, () -> rules.prepareCreate(role, new JsonObject(
        "{\"metadata\":{\"name\":\"r\",\"namespace\":\"a\",\"finalizers\":[\"foo\"]}}")));
    CrdRequest lease = request("leases.coordination.k8s.io", "POST",
        "/apis/coordination.k8s.io/v1/namespaces/a/leases", new Leases());
    rules.prepareCreate(lease, new JsonObject("{\"metadata\":{\"name\":\"l\",\"namespace\":\"a\","
        + "\"finalizers\":[\"foo\"]}}"));
  }

  /**
   * Core {@code v1} Events: the name is a path segment ({@code rest.BeforeCreate}'s generic check; {@code
   * ValidateEventCreate} has no name rule for them), and the legacy rules answer alone when they fail.
   */
  @Test
  void coreEventsNamesArePathSegmentsAndTheLegacyRulesAnswerAlone() {
    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    CrdRequest ev = request("events", "POST", "/api/v1/namespaces/a/events", new Events());
    rules.prepareCreate(ev, new JsonObject("{\"metadata\":{\"name\":\"Bad_E2\",\"namespace\":\"a\"},"
        + "\"involvedObject\":{\"namespace\":\"a\"}}"));
    StatusException slash = assertThrows(StatusException.class, () -> rules.prepareCreate(ev, new JsonObject(
        "{\"metadata\":{\"name\":\"a/b\",\"namespace\":\"a\"},\"involvedObject\":{\"namespace\":\"a\"}}")));
    assertEquals(List.of("metadata.name: Invalid value: \"a/b\": may not contain '/'"), causes(slash));
    StatusException legacy = assertThrows(StatusException.class, () -> rules.prepareCreate(ev, new JsonObject(
        "{\"metadata\":{\"name\":\"a/b\",\"namespace\":\"a\",\"labels\":{\"k\":\"x y\"}},"
        + "\"involvedObject\":{\"namespace\":\"other\"}}")));
    assertEquals(List.of("involvedObject.namespace"), causes(legacy).stream()
        .map(c -> c.substring(0, c.indexOf(':'))).toList());
    // an update lists both (rest.BeforeUpdate's common fields, then ValidateEventUpdate's legacy rules)
    CrdRequest evUpdate = request("events", "PUT", "/api/v1/namespaces/a/events/Bad_E2", new Events());
    JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"Bad_E2\",\"namespace\":\"a\",\"uid\":\"u1\","
        + "\"resourceVersion\":\"5\",\"creationTimestamp\":\"2026-12-07T10:00:00Z\"},"
        + "\"involvedObject\":{\"namespace\":\"a\"}}");
    JsonObject next = old.copy().put("involvedObject", new JsonObject().put("namespace", "other"));
    next.getJsonObject("metadata").put("labels", new JsonObject().put("k", "x y"));
    StatusException both = assertThrows(StatusException.class, () -> rules.prepareUpdate(evUpdate, old, next));
    assertEquals(List.of("metadata.labels", "involvedObject.namespace"), causes(both).stream()
        .map(c -> c.substring(0, c.indexOf(':'))).toList());
    // the same event updated through events.k8s.io: the immutable name is checked only as a path segment
    CrdRequest v1Update = request("events.events.k8s.io", "PUT",
        "/apis/events.k8s.io/v1/namespaces/a/events/Bad_E2", new EventsV1());
    rules.prepareUpdate(v1Update, old, old.copy());
  }

  /**
   * {@code ValidateNamespace} and {@code ValidateNamespaceFinalizeUpdate}: {@code spec.finalizers} entries are
   * qualified names, with a domain unless standard (a namespace would otherwise stay Terminating for good).
   */
  @Test
  void namespaceSpecFinalizersAreCheckedOnCreateAndFinalize() {
    Namespaces s = new Namespaces();
    CrdRequest create = request("namespaces", "POST", "/api/v1/namespaces", s);
    StatusException e = assertThrows(StatusException.class, () -> s.prepareCreate(create,
        new JsonObject("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"finalizers\":[\"foo\",\"kubernetes\"]}}")));
    assertEquals(List.of("spec.finalizers: Invalid value: \"foo\": name is neither a standard finalizer name nor is "
        + "it fully qualified"), causes(e));
    s.prepareCreate(create, new JsonObject("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"finalizers\":"
        + "[\"example.com/x\"]}}"));
    CrdRequest finalize = request("namespaces", "PUT", "/api/v1/namespaces/n/finalize", s);
    JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"finalizers\":[\"kubernetes\"]},"
        + "\"status\":{\"phase\":\"Active\"}}");
    StatusException f = assertThrows(StatusException.class, () -> s.prepareUpdate(finalize, old,
        new JsonObject("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"finalizers\":[\"kubernetes\",\"-x\"]}}")));
    assertEquals(List.of("spec.finalizers[1]", "spec.finalizers[1]"), causes(f).stream()
        .map(c -> c.substring(0, c.indexOf(':'))).toList());
  }

  /** A schema error in an RBAC object its own rules also refuse is answered with the rules' texts. */
  @Test
  void rbacRulesAnswerForTheSchema() {
    CrdRequest role = request("roles.rbac.authorization.k8s.io", "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles", new Rbac(null, false));
    JsonObject r = new JsonObject("{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\","
        + "\"metadata\":{\"name\":\"r\",\"namespace\":\"a\"},\"rules\":[{\"apiGroups\":[\"\"]}]}");
    StatusException e = assertThrows(StatusException.class,
        () -> io.mvproxy.registry.impl.rest.SchemaValidator.validate(role, r, null, false));
    assertEquals(List.of("rules[0].verbs: Required value: verbs must contain at least one value",
        "rules[0].resources: Required value: resource rules must supply at least one resource"), causes(e));
  }

  /** Secret {@code data} decoded as Go's {@code encoding/json} reads a {@code []byte}: base64 with Go's offsets. */
  @Test
  void secretDataIsBase64AsGoDecodesIt() {
    ObjectStrategy s = new Secrets().then(new ConfigData(true));
    CrdRequest create = request("secrets", "POST", "/api/v1/namespaces/a/secrets", s);
    Map<String, String> canonical = Map.of("YQ==", "YQ==", "YR==", "YQ==", "YWJj\nZA==", "YWJjZA==",
        "YW\r\nJj", "YWJj", "YWE=", "YWE=", "", "");
    canonical.forEach((in, out) -> assertEquals(out, s.decodeBody(create, new JsonObject().put("data",
        new JsonObject().put("k", in))).getJsonObject("data").getString("k"), in));
    Map<String, Integer> offsets = Map.of("!!!", 0, "YQ", 0, "YQ=", 3, "YWJjZA==x", 8, "Y===", 1, "=", 0,
        "YWJj=", 4, "YQ=a", 2, "YWJ\u00e9", 3);
    offsets.forEach((in, at) -> {
      StatusException e = assertThrows(StatusException.class, () -> s.decodeBody(create, new JsonObject()
          .put("data", new JsonObject().put("ok", "YQ==").put("k", in))), in);
      assertEquals(400, e.code(), in);
      assertEquals("Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte " + at,
          e.getMessage(), in);
    });
  }

  @Test
  void secretsMergeStringDataAndKeepTheirType() {
    ObjectStrategy s = new Secrets().then(new ConfigData(true));
    CrdRequest create = request("secrets", "POST", "/api/v1/namespaces/a/secrets", s);
    JsonObject out = s.prepareCreate(create, new JsonObject("{\"metadata\":{\"name\":\"s\"},\"stringData\":"
        + "{\"password\":\"hunter2\"}}"));
    assertEquals("Opaque", out.getString("type"));
    assertEquals("aHVudGVyMg==", out.getJsonObject("data").getString("password"));
    assertEquals(null, out.getValue("stringData"));
    CrdRequest update = request("secrets", "PUT", "/api/v1/namespaces/a/secrets/s", s);
    assertEquals(422, assertThrows(StatusException.class, () -> s.prepareUpdate(update, out,
        out.copy().put("type", "kubernetes.io/tls"))).code());
  }

  /** {@code ValidateSecret}'s rules of the well-known secret types, with upstream's field paths and texts. */
  @Test
  void secretTypesAsValidateSecret() {
    ObjectStrategy s = new Secrets().then(new ConfigData(true));
    CrdRequest create = request("secrets", "POST", "/api/v1/namespaces/a/secrets", s);
    record Case(String type, String body, List<String> causes) { }
    String cfg = Base64.getEncoder().encodeToString("{\"auths\":{}}".getBytes(StandardCharsets.UTF_8));
    String notJson = Base64.getEncoder().encodeToString("{auths".getBytes(StandardCharsets.UTF_8));
    for (Case c : List.of(
        new Case("kubernetes.io/tls", "{}", List.of("data[tls.crt]: Required value", "data[tls.key]: Required value")),
        new Case("kubernetes.io/tls", "{\"data\":{\"tls.key\":\"eA==\"},\"stringData\":{\"tls.crt\":\"x\"}}",
            List.of()),
        new Case("kubernetes.io/ssh-auth", "{\"data\":{\"ssh-privatekey\":\"\"}}",
            List.of("data[%s][ssh-privatekey]: Required value")),
        new Case("kubernetes.io/basic-auth", "{}", List.of("data[%s][username]: Required value",
            "data[%s][password]: Required value")),
        new Case("kubernetes.io/basic-auth", "{\"stringData\":{\"password\":\"\"}}", List.of()),
        new Case("kubernetes.io/dockerconfigjson", "{}", List.of("data[.dockerconfigjson]: Required value")),
        new Case("kubernetes.io/dockerconfigjson", "{\"data\":{\".dockerconfigjson\":\"" + notJson + "\"}}",
            List.of("data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": invalid character 'a' "
                + "looking for beginning of object key string")),
        new Case("kubernetes.io/dockercfg", "{\"data\":{\".dockercfg\":\"" + cfg + "\"}}", List.of()),
        new Case("kubernetes.io/service-account-token", "{}",
            List.of("metadata.annotations[kubernetes.io/service-account.name]: Required value")),
        new Case("example.com/custom", "{}", List.of()))) {
      JsonObject o = new JsonObject(c.body()).put("type", c.type())
          .put("metadata", new JsonObject().put("name", "s").put("namespace", "a"));
      if (c.causes().isEmpty()) {
        s.prepareCreate(create, o);
        continue;
      }
      StatusException e = assertThrows(StatusException.class, () -> s.prepareCreate(create, o), c.toString());
      assertEquals(c.causes(), causes(e), c.toString());
    }
  }

  @Test
  void namespaceCreateUpdateDelete() {
    Namespaces n = new Namespaces();
    CrdRequest create = request("namespaces", "POST", "/api/v1/namespaces", n);
    JsonObject ns = n.prepareCreate(create, new JsonObject("{\"metadata\":{\"name\":\"x\"}}"));
    assertEquals("{\"finalizers\":[\"kubernetes\"]}", ns.getJsonObject("spec").encode());
    assertEquals("Active", ns.getJsonObject("status").getString("phase"));
    // the name rule is a DNS-1123 label (ValidateNamespaceName), applied with the rest of ObjectMeta (HTTP: fleet test)
    String label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
        + "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    assertEquals(List.of(label), n.nameProblems("Bad_Name"));
    assertEquals(List.of("must be no more than 63 characters"), n.nameProblems("a".repeat(64)));
    assertEquals(List.of("must be no more than 63 characters", label), n.nameProblems("A".repeat(64)));
    assertEquals(List.of("must not contain dots"), n.nameProblems("a.b"));
    assertEquals(List.of(), n.nameProblems("kube-system"));
    Rbac rbac = new Rbac(null, false);
    assertEquals(List.of(), rbac.nameProblems("system:controller:Foo_Bar"));
    assertEquals(List.of("may not be '..'"), rbac.nameProblems(".."));
    assertEquals(List.of("may not contain '/'", "may not contain '%'"), rbac.nameProblems("a/b%c"));
    assertEquals(null, new Secrets().nameProblems("x"), "the default rule (DNS-1123 subdomain)");
    // a generateName: the same rule with a trailing '-' masked (NameIsDNSLabel(prefix, true)); RBAC's rule ignores
    // the prefix flag (ValidateRBACName: IsValidPathSegmentName)
    assertEquals(List.of(), n.prefixProblems("team-"));
    assertEquals(List.of(label), n.prefixProblems("Team-"));
    assertEquals(List.of("may not be '..'"), rbac.prefixProblems(".."));
    assertEquals(List.of("may not be '.'"), rbac.prefixProblems("."));
    assertEquals(List.of("may not contain '/'"), rbac.prefixProblems("a/"));
    assertEquals(List.of(), rbac.prefixProblems("system:x-"));
    assertEquals(null, new Secrets().prefixProblems("x-"), "the default rule (DNS-1123 subdomain)");
    CrdRequest update = request("namespaces", "PUT", "/api/v1/namespaces/x", n);
    JsonObject changed = n.prepareUpdate(update, ns, new JsonObject("{\"metadata\":{\"name\":\"x\"},\"spec\":"
        + "{\"finalizers\":[]},\"status\":{\"phase\":\"Terminating\"}}"));
    assertEquals(ns.getJsonObject("spec"), changed.getJsonObject("spec"), "plain update keeps spec.finalizers");
    assertEquals("Active", changed.getJsonObject("status").getString("phase"));
    CrdRequest delete = request("namespaces", "DELETE", "/api/v1/namespaces/x", n);
    JsonObject terminating = n.onDelete(delete, ns);
    assertEquals("Terminating", terminating.getJsonObject("status").getString("phase"));
    assertEquals(409, assertThrows(StatusException.class, () -> n.onDelete(delete, terminating)).code());
    assertEquals(403, assertThrows(StatusException.class, () -> n.onDelete(delete,
        Namespaces.systemNamespace("kube-system"))).code());
    assertEquals(null, n.onDelete(delete, new JsonObject("{\"metadata\":{\"name\":\"y\"},\"spec\":{}}")),
        "no finalizers left: removed by the generic path");
    // ValidateNamespaceStatusUpdate: Active without a deletionTimestamp (the default when none is sent), Terminating
    // with one
    CrdRequest status = request("namespaces", "PUT", "/api/v1/namespaces/x/status", n);
    StatusException early = assertThrows(StatusException.class, () -> n.prepareUpdate(status, ns,
        ns.copy().put("status", new JsonObject().put("phase", "Terminating"))));
    assertEquals(422, early.code());
    assertEquals("Namespace \"x\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be 'Active' if "
        + "`deletionTimestamp` is empty", early.getMessage());
    assertEquals("Active", n.prepareUpdate(status, ns, ns.copy().put("status", new JsonObject()))
        .getJsonObject("status").getString("phase"), "an empty phase is stored as the default");
    StatusException back = assertThrows(StatusException.class, () -> n.prepareUpdate(status, terminating,
        terminating.copy().put("status", new JsonObject().put("phase", "Active"))));
    assertEquals("Namespace \"x\" is invalid: status.Phase: Invalid value: \"Active\": may only be 'Terminating' if "
        + "`deletionTimestamp` is not empty", back.getMessage());
    assertEquals(422, assertThrows(StatusException.class, () -> n.prepareUpdate(status, terminating,
        terminating.copy().put("status", new JsonObject()))).code(), "no phase is Active");
    assertEquals("Terminating", n.prepareUpdate(status, terminating, terminating.copy()).getJsonObject("status")
        .getString("phase"));
  }

  /**
   * An update that sets a {@code generateName}: every kind refuses '/' and '%' ({@code rest.BeforeUpdate}'s
   * {@code validateCommonFields}: {@code path.ValidatePathSegmentName}), then the kinds whose upstream update
   * validates the whole object again ({@code ValidateConfigMapUpdate}, {@code ValidateSecretUpdate},
   * {@code ValidateServiceAccountUpdate}, {@code ValidateRoleUpdate}) check it with their name rule as on create; a
   * Namespace ({@code ValidateNamespaceUpdate}: {@code ValidateObjectMetaUpdate} only) and a custom resource do not.
   */
  @Test
  void anUpdateSettingAGenerateNameIsCheckedAsUpstream() {
    String subdomain = "a lowercase RFC 1123 subdomain must consist of lower case "
        + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        + "'example.com', regex used for validation is "
        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    String cms = "/api/v1/namespaces/a/configmaps/c";
    String roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles/c";
    String rolesPlural = "roles.rbac.authorization.k8s.io";
    record Case(String plural, String path, ObjectStrategy s, String prefix, List<String> messages) { }
    List<Case> cases = List.of(
        new Case("configmaps", cms, new ConfigData(false), "Bad_", List.of(subdomain)),
        new Case("secrets", "/api/v1/namespaces/a/secrets/c", new Secrets().then(new ConfigData(true)), "Bad_",
            List.of(subdomain)),
        new Case("serviceaccounts", "/api/v1/namespaces/a/serviceaccounts/c", BuiltinApis.WHOLE_ON_UPDATE, "Bad_",
            List.of(subdomain)),
        new Case(rolesPlural, roles, new Rbac(null, false), "..", List.of("may not be '..'")),
        new Case(rolesPlural, roles, new Rbac(null, false), "a/", List.of("may not contain '/'",
            "may not contain '/'")),
        new Case("configmaps", cms, new ConfigData(false), "a/", List.of("may not contain '/'", subdomain)),
        new Case("namespaces", "/api/v1/namespaces/c", new Namespaces(), "a%", List.of("may not contain '%'")),
        new Case("configmaps", cms, ObjectStrategy.NONE, "a/", List.of("may not contain '/'")),
        new Case("configmaps", cms, new ConfigData(false), "ok-", List.of()),
        new Case(rolesPlural, roles, new Rbac(null, false), "Bad_", List.of()),
        new Case("namespaces", "/api/v1/namespaces/c", new Namespaces(), "Bad_", List.of()),
        new Case("configmaps", cms, ObjectStrategy.NONE, "Bad_", List.of()));
    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    for (Case c : cases) {
      String ns = c.plural().equals("namespaces") ? "" : ",\"namespace\":\"a\"";
      JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"c\"" + ns + ",\"uid\":\"u-1\","
          + "\"resourceVersion\":\"5\",\"creationTimestamp\":\"2026-12-06T10:00:00Z\"}}");
      JsonObject next = old.copy();
      next.getJsonObject("metadata").put("generateName", c.prefix());
      CrdRequest req = request(c.plural(), "PUT", c.path(), c.s().then(new KindSemantics(c.plural())));
      String what = c.plural() + " " + c.s().getClass().getSimpleName() + " " + c.prefix();
      if (c.messages().isEmpty()) {
        assertEquals(c.prefix(), rules.prepareUpdate(req, old, next).getJsonObject("metadata")
            .getString("generateName"), what);
        continue;
      }
      StatusException e = assertThrows(StatusException.class, () -> rules.prepareUpdate(req, old, next), what);
      assertEquals(422, e.code(), what);
      List<String> seen = new java.util.ArrayList<>();
      e.toStatus().getJsonObject("details").getJsonArray("causes").forEach(o -> {
        JsonObject cause = (JsonObject) o;
        assertEquals("metadata.generateName", cause.getString("field"), what);
        seen.add(cause.getString("message"));
      });
      assertEquals(c.messages().stream().map(m -> "Invalid value: \"" + c.prefix() + "\": " + m).toList(), seen,
          what);
    }
  }

  /** @return "field: message" of each cause of {@code e} */
  static List<String> causes(StatusException e) {
    List<String> seen = new java.util.ArrayList<>();
    e.toStatus().getJsonObject("details").getJsonArray("causes").forEach(o -> seen.add(
        ((JsonObject) o).getString("field") + ": " + ((JsonObject) o).getString("message")));
    return seen;
  }

  /**
   * Events as {@code pkg/apis/core/validation/events.go}: the legacy rules on both APIs (involved object's namespace;
   * a new-style event's reporting fields), the strict create and update rules of {@code events.k8s.io/v1}.
   */
  @Test
  void eventRulesAsUpstream() {
    String core = "/api/v1/namespaces/a/events";
    String v1 = "/apis/events.k8s.io/v1/namespaces/a/events";
    CrdRequest coreReq = request("events", "POST", core, new Events());
    CrdRequest v1Req = request("events.events.k8s.io", "POST", v1, new EventsV1());
    JsonObject otherNs = new JsonObject("{\"metadata\":{\"name\":\"e\",\"namespace\":\"a\"},\"involvedObject\":"
        + "{\"kind\":\"ConfigMap\",\"name\":\"c\",\"namespace\":\"b\"},\"reason\":\"R\",\"type\":\"Bogus\"}");
    assertEquals(List.of("involvedObject.namespace: Invalid value: \"b\": does not match event.namespace"),
        causes(assertThrows(StatusException.class, () -> new Events().prepareCreate(coreReq, otherNs))));
    JsonObject newStyle = new JsonObject("{\"metadata\":{\"name\":\"e\",\"namespace\":\"a\"},\"involvedObject\":"
        + "{\"kind\":\"ConfigMap\",\"name\":\"c\"},\"eventTime\":\"2026-01-01T00:00:00.000000Z\","
        + "\"reportingInstance\":\"" + "i".repeat(129) + "\"}");
    StatusException e = assertThrows(StatusException.class, () -> new Events().prepareCreate(coreReq, newStyle));
    assertEquals(List.of("involvedObject.namespace", "reportingComponent", "reportingComponent", "reportingComponent",
        "reportingInstance", "action", "reason"), causes(e).stream().map(c -> c.substring(0, c.indexOf(':'))).toList());
    assertEquals("reportingInstance: Invalid value: \"\": can have at most 128 characters", causes(e).get(4));
    JsonObject gcStyle = new JsonObject("{\"metadata\":{\"name\":\"e\",\"namespace\":\"a\"},\"involvedObject\":"
        + "{\"kind\":\"ConfigMap\",\"name\":\"c\",\"namespace\":\"a\"},\"reason\":\"R\",\"type\":\"Warning\","
        + "\"source\":{\"component\":\"gc\"},\"count\":1,\"reportingComponent\":\"gc\"}");
    assertEquals(gcStyle, new Events().prepareCreate(coreReq, gcStyle.copy()));
    JsonObject strict = new JsonObject("{\"metadata\":{\"name\":\"e\",\"namespace\":\"a\"},\"regarding\":"
        + "{\"kind\":\"ConfigMap\",\"name\":\"c\",\"namespace\":\"a\"},\"reason\":\"R\",\"type\":\"Bogus\","
        + "\"deprecatedCount\":3,\"series\":{\"count\":1}}");
    assertEquals(List.of("series.count: Invalid value: \"\": should be at least 2",
        "series.lastObservedTime: Required value", "eventTime: Required value",
        "type: Invalid value: \"\": has invalid value: Bogus", "count: Invalid value: \"\": needs to be unset"),
        causes(assertThrows(StatusException.class, () -> new EventsV1().prepareCreate(v1Req, strict))));
    JsonObject good = new JsonObject("{\"metadata\":{\"name\":\"e\",\"namespace\":\"a\"},\"regarding\":"
        + "{\"kind\":\"ConfigMap\",\"name\":\"c\",\"namespace\":\"a\"},\"reason\":\"R\",\"type\":\"Normal\","
        + "\"eventTime\":\"2026-01-01T00:00:00.000000Z\",\"reportingController\":\"example.com/t\","
        + "\"reportingInstance\":\"t-1\",\"action\":\"A\",\"note\":\"n\"}");
    JsonObject stored = new EventsV1().prepareCreate(v1Req, good.copy());
    assertEquals("n", stored.getString("message"));
    JsonObject changed = good.copy().put("note", "new").put("eventTime", "2026-01-01T00:00:00.0000001Z")
        .put("reportingController", "other");
    assertEquals(List.of("message: Invalid value: \"new\": field is immutable",
        "reportingController: Invalid value: \"other\": field is immutable"),
        causes(assertThrows(StatusException.class, () -> new EventsV1().prepareUpdate(v1Req, stored, changed))),
        "the event time compared to the microsecond");
    JsonObject moved = good.copy().put("eventTime", "2026-01-02T03:04:05.5Z");
    assertEquals(List.of("eventTime: Invalid value: 2026-01-02 03:04:05.5 +0000 UTC: field is immutable"),
        causes(assertThrows(StatusException.class, () -> new EventsV1().prepareUpdate(v1Req, stored, moved))));
  }

  /** {@code ValidateLeaseSpec}: a duration above 0, transitions at least 0, a preferred holder only with a strategy. */
  @Test
  void leaseSpecRules() {
    String path = "/apis/coordination.k8s.io/v1/namespaces/a/leases";
    JsonObject bad = new JsonObject("{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":-5,"
        + "\"leaseTransitions\":-1,\"preferredHolder\":\"x\"}}");
    CrdRequest req = request("leases.coordination.k8s.io", "POST", path, new Leases());
    StatusException e = assertThrows(StatusException.class, () -> new Leases().prepareCreate(req, bad));
    assertEquals("Lease.coordination.k8s.io \"l\" is invalid: [spec.leaseDurationSeconds: Invalid value: -5: must be "
        + "greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0, "
        + "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined]", e.getMessage());
    JsonObject ok = new JsonObject("{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":15,"
        + "\"leaseTransitions\":0,\"holderIdentity\":\"a\"}}");
    assertEquals(ok, new Leases().prepareUpdate(req, ok, ok));
    JsonObject strategies = new JsonObject("{\"metadata\":{\"name\":\"l\"},\"spec\":{\"strategy\":\"Newest\","
        + "\"preferredHolder\":\"x\"}}");
    e = assertThrows(StatusException.class, () -> new Leases().prepareCreate(req, strategies));
    assertEquals("Lease.coordination.k8s.io \"l\" is invalid: spec.strategy.strategy: Unsupported value: \"Newest\": "
        + "supported values: \"OldestEmulationVersion\"", e.getMessage());
    assertEquals(List.of(), Leases.validate(new JsonObject(
        "{\"spec\":{\"strategy\":\"OldestEmulationVersion\",\"preferredHolder\":\"x\"}}")));
    assertEquals(List.of(), Leases.validate(new JsonObject("{\"spec\":{\"strategy\":\"example.com/mine\"}}")));
    assertEquals(1, Leases.validate(new JsonObject("{\"spec\":{\"strategy\":\"example.com/-bad\"}}")).size());
  }

  /**
   * RBAC field rules beyond the schema ({@code pkg/apis/rbac/validation/validation.go}): each case's object, created
   * through the strategy, gives kube-apiserver's 422 causes (field and message), or none; the bootstrap policy passes.
   */
  @Test
  void rbacFieldRulesAsUpstreamValidation() {
    String rb = "/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings";
    String crb = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
    String role = "/apis/rbac.authorization.k8s.io/v1/namespaces/a/roles";
    String cr = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
    String view = "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"view\"}";
    record Case(String path, String body, List<String> causes) { }
    List<Case> cases = List.of(
        new Case(rb, view + ",\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]", List.of()),
        new Case(crb, view + ",\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]",
            List.of("subjects[0].namespace: Required value")),
        new Case(rb, "\"roleRef\":{\"apiGroup\":\"x.io\",\"kind\":\"Bogus\",\"name\":\"a/b\"}", List.of(
            "roleRef.apiGroup: Unsupported value: \"x.io\": supported values: \"rbac.authorization.k8s.io\"",
            "roleRef.kind: Unsupported value: \"Bogus\": supported values: \"Role\", \"ClusterRole\"",
            "roleRef.name: Invalid value: \"a/b\": may not contain '/'")),
        new Case(crb, "\"roleRef\":{\"kind\":\"Role\",\"name\":\"\"}", List.of(
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "roleRef.name: Required value")),
        new Case(rb, view + ",\"subjects\":[{\"kind\":\"user\",\"name\":\"u\"},{\"kind\":\"User\",\"name\":\"u\","
            + "\"apiGroup\":\"x\"},{\"kind\":\"ServiceAccount\",\"name\":\"Bad_\",\"apiGroup\":\"v1\"},"
            + "{\"kind\":\"Group\",\"name\":\"\"}]", List.of(
            "subjects[0].kind: Unsupported value: \"user\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
            "subjects[1].apiGroup: Unsupported value: \"x\": supported values: \"rbac.authorization.k8s.io\"",
            "subjects[2].name: Invalid value: \"Bad_\": a lowercase RFC 1123 subdomain must consist of lower case "
                + "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                + "'example.com', regex used for validation is "
                + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "subjects[2].apiGroup: Unsupported value: \"v1\": supported values: \"\"",
            "subjects[3].name: Required value")),
        new Case(role, "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]", List.of()),
        new Case(role, "\"rules\":[{\"verbs\":[]},{\"nonResourceURLs\":[\"/a\",\"/b\"],\"resources\":[\"x\"],"
            + "\"verbs\":[\"get\"]}]", List.of(
            "rules[0].verbs: Required value: verbs must contain at least one value",
            "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[0].resources: Required value: resource rules must supply at least one resource",
            "rules[1].nonResourceURLs: Invalid value: []string{\"/a\", \"/b\"}: namespaced rules cannot apply to "
                + "non-resource URLs",
            "rules[1].nonResourceURLs: Invalid value: []string{\"/a\", \"/b\"}: rules cannot apply to both regular "
                + "resources and non-resource URLs")),
        new Case(cr, "\"rules\":[{\"nonResourceURLs\":[\"/healthz\"],\"verbs\":[\"get\"]}]", List.of()),
        new Case(cr, "\"aggregationRule\":{}", List.of("aggregationRule.clusterRoleSelectors: Required value: at "
            + "least one clusterRoleSelector required if aggregationRule is non-nil")),
        new Case(cr, "\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"a\":\"b\"}},"
            + "{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}]}", List.of(
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Forbidden: may not be specified when "
                + "`operator` is 'Exists' or 'DoesNotExist'",
            "aggregationRule.clusterRoleSelectors[1]: Invalid value: \"null\": invalid label selector.")),
        new Case(rb, "\"subjects\":[]", List.of(
            "roleRef.kind: Unsupported value: \"\": supported values: \"Role\", \"ClusterRole\"",
            "roleRef.name: Required value")));
    io.mvproxy.authorization.NodeAuthorization access = new io.mvproxy.authorization.NodeAuthorization(
        List.of("RBAC"));
    for (Case c : cases) {
      boolean binding = c.path().endsWith("bindings");
      String plural = c.path().substring(c.path().lastIndexOf('/') + 1) + ".rbac.authorization.k8s.io";
      JsonObject obj = new JsonObject("{\"metadata\":{\"name\":\"x\"}," + c.body() + "}");
      Rbac rbac = new Rbac(access, binding);
      CrdRequest req = request(plural, "POST", c.path(), rbac);
      io.vertx.core.Future<Void> admitted = rbac.admitCreate(req, rbac.prepareCreate(req, obj));
      if (c.causes().isEmpty()) {
        assertEquals(null, admitted.cause(), c.body());
        continue;
      }
      StatusException e = (StatusException) admitted.cause();
      assertEquals(422, e.code(), c.body());
      List<String> seen = new java.util.ArrayList<>();
      e.toStatus().getJsonObject("details").getJsonArray("causes").forEach(o -> seen.add(
          ((JsonObject) o).getString("field") + ": " + ((JsonObject) o).getString("message")));
      assertEquals(c.causes(), seen, c.body());
    }
    JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\"}," + view + "}");
    Rbac.setDefaults(old);
    JsonObject changed = old.copy();
    changed.getJsonObject("roleRef").put("name", "edit");
    CrdRequest put = request("rolebindings.rbac.authorization.k8s.io", "PUT", rb + "/x", new Rbac(access, true));
    StatusException e = assertThrows(StatusException.class, () -> new Rbac(access, true).prepareUpdate(put, old,
        changed));
    assertEquals("RoleBinding.rbac.authorization.k8s.io \"x\" is invalid: roleRef: Invalid value: rbac.RoleRef{"
        + "APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"edit\"}: cannot change roleRef",
        e.getMessage());
    for (JsonObject policy : io.mvproxy.authorization.BootstrapPolicy.clusterRoles()) {
      assertEquals(List.of(), new Rbac(null, false).validate(policy, false), policy.encode());
    }
    for (JsonObject policy : io.mvproxy.authorization.BootstrapPolicy.clusterRoleBindings()) {
      assertEquals(List.of(), new Rbac(null, true).validate(Rbac.setDefaults(policy), false), policy.encode());
    }
  }

  /**
   * RBAC defaults ({@code rbac/v1/defaults.go}: a binding's empty {@code roleRef.apiGroup} and a User or Group
   * subject's empty {@code apiGroup} become {@code rbac.authorization.k8s.io}), the generation an update cannot
   * change on a kind the server does not count it for ({@code rest.BeforeUpdate}), and the Event conversion's
   * omitempty strings.
   */
  /**
   * A webhook's caBundle is a []byte (omitempty) to the typed decoder: bad base64 is the create's 400 decoding error,
   * an empty one is left out, a good one comes back canonical.
   */
  @Test
  void webhookCaBundleIsDecodedAsBytes() {
    WebhookConfigStrategy s = new WebhookConfigStrategy(false);
    CrdRequest create = request("validatingwebhookconfigurations.admissionregistration.k8s.io", "POST",
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", s);
    java.util.function.Function<String, JsonObject> config = ca -> new JsonObject().put("webhooks", new JsonArray()
        .add(new JsonObject().put("name", "a.b.c").put("clientConfig", new JsonObject().put("caBundle", ca))));
    StatusException e = assertThrows(StatusException.class, () -> s.decodeBody(create, config.apply("abc$")));
    assertEquals(400, e.code());
    assertEquals("ValidatingWebhookConfiguration in version \"v1\" cannot be handled as a "
        + "ValidatingWebhookConfiguration: illegal base64 data at input byte 3", e.getMessage());
    assertEquals(new JsonObject(), s.decodeBody(create, config.apply("")).getJsonArray("webhooks").getJsonObject(0)
        .getJsonObject("clientConfig"), "an empty caBundle is omitted");
    assertEquals("YWJj", s.decodeBody(create, config.apply("YWJj\n")).getJsonArray("webhooks").getJsonObject(0)
        .getJsonObject("clientConfig").getString("caBundle"));
  }

  /** An APIService's {@code spec.caBundle} is a []byte (omitempty) as well: kube-aggregator's typed decoder. */
  @Test
  void apiServiceCaBundleIsDecodedAsBytes() {
    ApiServiceStrategy s = new ApiServiceStrategy();
    CrdRequest create = request("apiservices.apiregistration.k8s.io", "POST",
        "/apis/apiregistration.k8s.io/v1/apiservices", s);
    java.util.function.Function<String, JsonObject> svc = ca -> new JsonObject().put("spec", new JsonObject()
        .put("group", "wardle.example.com").put("caBundle", ca));
    StatusException e = assertThrows(StatusException.class, () -> s.decodeBody(create, svc.apply("not base64")));
    assertEquals(400, e.code());
    assertEquals("APIService in version \"v1\" cannot be handled as a APIService: illegal base64 data at input byte 3",
        e.getMessage());
    assertEquals(new JsonObject().put("group", "wardle.example.com"),
        s.decodeBody(create, svc.apply("")).getJsonObject("spec"), "an empty caBundle is omitted");
    assertEquals("YWJj", s.decodeBody(create, svc.apply("YW\nJj")).getJsonObject("spec").getString("caBundle"));
  }

  @Test
  void defaultsGenerationAndEventZeroValues() {
    Rbac binding = new Rbac(null, true);
    JsonObject rb = binding.prepareCreate(request("rolebindings.rbac.authorization.k8s.io", "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings", binding), new JsonObject("""
        {"metadata":{"name":"rb"},"roleRef":{"kind":"ClusterRole","name":"view"},
         "subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g","apiGroup":""},
                     {"kind":"ServiceAccount","name":"s","namespace":"a"}]}"""));
    assertEquals(new JsonObject("""
        {"metadata":{"name":"rb"},"roleRef":{"kind":"ClusterRole","name":"view","apiGroup":"rbac.authorization.k8s.io"},
         "subjects":[{"kind":"User","name":"u","apiGroup":"rbac.authorization.k8s.io"},
                     {"kind":"Group","name":"g","apiGroup":"rbac.authorization.k8s.io"},
                     {"kind":"ServiceAccount","name":"s","namespace":"a"}]}"""), rb);

    io.mvproxy.registry.impl.rest.ObjectRules rules = new io.mvproxy.registry.impl.rest.ObjectRules(false);
    CrdRequest put = request("configmaps", "PUT", "/api/v1/namespaces/a/configmaps/c",
        new ConfigData(false).then(new KindSemantics("configmaps")));
    JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"c\",\"namespace\":\"a\",\"uid\":\"u-1\","
        + "\"resourceVersion\":\"5\",\"creationTimestamp\":\"2026-12-06T10:00:00Z\"}}");
    JsonObject next = old.copy();
    next.getJsonObject("metadata").put("generation", 7);
    assertEquals(false, rules.prepareUpdate(put, old, next).getJsonObject("metadata").containsKey("generation"),
        "an update cannot set it");
    old.getJsonObject("metadata").put("generation", 2);
    next.getJsonObject("metadata").put("generation", 9);
    assertEquals(2L, rules.prepareUpdate(put, old, next).getJsonObject("metadata").getLong("generation"));

    assertEquals(new JsonObject("{\"apiVersion\":\"events.k8s.io/v1\",\"type\":\"Normal\","
        + "\"regarding\":{\"kind\":\"Pod\"}}"), EventConversion.toEvents(new JsonObject("{\"apiVersion\":\"v1\","
        + "\"type\":\"Normal\",\"message\":\"\",\"reportingComponent\":\"\",\"reportingInstance\":\"\",\"count\":0,"
        + "\"involvedObject\":{\"kind\":\"Pod\"}}")));
    assertEquals(new JsonObject("{\"apiVersion\":\"v1\",\"reportingComponent\":\"\",\"reason\":\"R\"}"),
        EventConversion.toCore(new JsonObject("{\"apiVersion\":\"events.k8s.io/v1\",\"note\":\"\",\"reason\":\"R\","
        + "\"reportingController\":\"\"}")));
  }

  /**
   * A patch's result is not read by decodeBody: its {@code []byte} values are checked and stored as Go re-encodes
   * them (padded, no line breaks); an empty one is valid.
   */
  @Test
  void bytesOfAPatchedSecretOrConfigMapAreStoredAsGoReencodesThem() {
    ConfigData secrets = new ConfigData(true);
    CrdRequest update = request("secrets", "PATCH", "/api/v1/namespaces/a/secrets/s", secrets);
    JsonObject old = new JsonObject("{\"metadata\":{\"name\":\"s\"},\"data\":{}}");
    JsonObject out = secrets.prepareUpdate(update, old, new JsonObject("{\"metadata\":{\"name\":\"s\"},"
        + "\"data\":{\"x\":\"eB==\",\"y\":\"e\\nA==\",\"z\":\"\"}}"));
    assertEquals(new JsonObject("{\"x\":\"eA==\",\"y\":\"eA==\",\"z\":\"\"}"), out.getJsonObject("data"));
    StatusException bad = assertThrows(StatusException.class, () -> secrets.prepareUpdate(update, old,
        new JsonObject("{\"metadata\":{\"name\":\"s\"},\"data\":{\"b\":\"ab$c\"}}")));
    assertEquals(422, bad.code());
    assertEquals("Invalid value: \"ab$c\": illegal base64 data at input byte 2", bad.toStatus()
        .getJsonObject("details").getJsonArray("causes").getJsonObject(0).getString("message"));
    ConfigData maps = new ConfigData(false);
    CrdRequest cmUpdate = request("configmaps", "PATCH", "/api/v1/namespaces/a/configmaps/c", maps);
    assertEquals("eA==", maps.prepareUpdate(cmUpdate, cm("{}"), cm("{}").put("binaryData",
        new JsonObject().put("b", "eB=="))).getJsonObject("binaryData").getString("b"));
  }
}
