package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectRules;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A wrong JSON type in a built-in kind's own field is kube-apiserver's typed decoding error (400 BadRequest,
 * {@code handlers/create.go transformDecodeError} over Go's {@code UnmarshalTypeError}), not a schema 422.
 */
@Tag("unit")
class TypedDecodingTest {
  static final ObjectRules RULES = new ObjectRules();

  static StatusException refused(String plural, String path, ObjectStrategy s, String body) {
    CrdRequest req = StrategiesTest.request(plural, "POST", path, s.then(new KindSemantics(plural)));
    return assertThrows(StatusException.class, () -> RULES.checkIdentity(req, new JsonObject(body), false));
  }

  static void accepted(String plural, String path, ObjectStrategy s, String body) {
    RULES.checkIdentity(StrategiesTest.request(plural, "POST", path, s.then(new KindSemantics(plural))),
        new JsonObject(body), false);
  }

  @Test
  void configMapDataValueOfTheWrongTypeIsABadRequest() {
    String cms = "/api/v1/namespaces/a/configmaps";
    StatusException e = refused("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"data\":{\"x\":5}}");
    assertEquals(400, e.code());
    assertEquals("BadRequest", e.toStatus().getString("reason"));
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go "
        + "struct field ConfigMap.data of type string", e.getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go "
        + "struct field ConfigMap.data of type map[string]string", refused("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"data\":[]}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go "
        + "struct field ConfigMap.immutable of type bool", refused("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"immutable\":\"yes\"}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go "
        + "struct field ConfigMap.binaryData of type []uint8", refused("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"binaryData\":{\"b\":true}}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go "
        + "struct field ConfigMap.metadata of type v1.ObjectMeta", refused("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":\"x\"}").getMessage());
    accepted("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"data\":{\"x\":\"5\",\"n\":null},\"immutable\":null,\"unknown\":5}");
  }

  /** ObjectMeta's ownerReferences and finalizers as Go's decoder reads them (null items are zero values). */
  @Test
  void ownerReferencesAndFinalizersAreDecodedAsGo() {
    String cms = "/api/v1/namespaces/a/configmaps";
    String prefix = "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal ";
    assertEquals(prefix + "string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference",
        refused("configmaps", cms, ObjectStrategy.NONE, "{\"metadata\":{\"name\":\"c\",\"ownerReferences\":[\"u1\"]}}")
            .getMessage());
    assertEquals(prefix + "object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference",
        refused("configmaps", cms, ObjectStrategy.NONE, "{\"metadata\":{\"name\":\"c\",\"ownerReferences\":{}}}")
            .getMessage());
    assertEquals(prefix + "number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID",
        refused("configmaps", cms, ObjectStrategy.NONE,
            "{\"metadata\":{\"name\":\"c\",\"ownerReferences\":[{\"uid\":5}]}}").getMessage());
    assertEquals(prefix + "string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool",
        refused("configmaps", cms, ObjectStrategy.NONE,
            "{\"metadata\":{\"name\":\"c\",\"ownerReferences\":[{\"uid\":\"u\",\"controller\":\"yes\"}]}}")
            .getMessage());
    JsonObject nulls = new JsonObject("{\"metadata\":{\"name\":\"c\",\"finalizers\":[null],\"ownerReferences\":[null]}}");
    RULES.checkIdentity(StrategiesTest.request("configmaps", "POST", cms, new KindSemantics("configmaps")), nulls,
        false);
    assertEquals("[\"\"]", nulls.getJsonObject("metadata").getJsonArray("finalizers").encode(),
        "a null item is the zero value, which validation then refuses");
    assertEquals("[{}]", nulls.getJsonObject("metadata").getJsonArray("ownerReferences").encode());
  }

  /**
   * {@code metav1.Time} / {@code MicroTime} fields are parsed by the typed decoder ({@code time.Parse}): a value Go
   * refuses is the 400 decoding error, wherever the field is (top level, nested, in ObjectMeta's managedFields); a
   * valid one is stored as Go writes it (UTC, whole seconds or six digits).
   */
  @Test
  void timesAreReadAsTheTypedDecoderReadsThem() {
    String events = "/api/v1/namespaces/a/events";
    String ev = "{\"metadata\":{\"name\":\"e\"},\"involvedObject\":{\"kind\":\"ConfigMap\",\"name\":\"c\"},";
    StatusException e = refused("events", events, new Events(), ev + "\"lastTimestamp\":\"bad\"}");
    assertEquals(400, e.code());
    assertEquals("Event in version \"v1\" cannot be handled as a Event: parsing time \"bad\" as "
        + "\"2006-01-02T15:04:05Z07:00\": cannot parse \"bad\" as \"2006\"", e.getMessage());
    assertEquals("Event in version \"v1\" cannot be handled as a Event: parsing time \"2026-01-01T00:00:00Z\" as "
        + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"", refused("events", events,
        new Events(), ev + "\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-01T00:00:00Z\"}}").getMessage());
    assertEquals("Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal number into Go struct "
        + "field Event.firstTimestamp of type string", refused("events", events, new Events(), ev
        + "\"firstTimestamp\":5}").getMessage());
    assertEquals("Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal bool into Go struct "
        + "field EventSeries.series.lastObservedTime of type string", refused("events", events, new Events(), ev
        + "\"series\":{\"lastObservedTime\":true}}").getMessage());
    String leases = "/apis/coordination.k8s.io/v1/namespaces/a/leases";
    assertEquals("Lease in version \"v1\" cannot be handled as a Lease: parsing time \"garbage\" as "
        + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"garbage\" as \"2006\"", refused(
        "leases.coordination.k8s.io", leases, new Leases(),
        "{\"metadata\":{\"name\":\"l\"},\"spec\":{\"renewTime\":\"garbage\"}}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: parsing time \"nonsense\" as "
        + "\"2006-01-02T15:04:05Z07:00\": cannot parse \"nonsense\" as \"2006\"", refused("configmaps",
        "/api/v1/namespaces/a/configmaps", ObjectStrategy.NONE, "{\"metadata\":{\"name\":\"c\",\"managedFields\":"
        + "[{\"manager\":\"m\",\"operation\":\"Update\",\"time\":\"nonsense\"}]}}").getMessage());
    String v1 = "/apis/events.k8s.io/v1/namespaces/a/events";
    assertEquals("Event in version \"v1\" cannot be handled as a Event: parsing time \"2026-12-07T03:00:00Z\" as "
        + "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"", refused("events.events.k8s.io",
        v1, new EventsV1(), "{\"metadata\":{\"name\":\"e\"},\"eventTime\":\"2026-12-07T03:00:00Z\"}")
        .getMessage());

    // kinds without a protobuf description: their conditions' lastTransitionTime (a helper's CRD status patch)
    assertEquals("CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: parsing "
        + "time \"bad\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"bad\" as \"2006\"", refused(
        "customresourcedefinitions.apiextensions.k8s.io", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        ObjectStrategy.NONE, "{\"metadata\":{\"name\":\"a.b.io\"},\"status\":{\"conditions\":[{\"type\":"
        + "\"Established\",\"lastTransitionTime\":\"bad\"}]}}").getMessage());

    JsonObject ok = new JsonObject(ev + "\"firstTimestamp\":\"2026-12-07T04:00:00.5+01:00\",\"lastTimestamp\":null,"
        + "\"eventTime\":\"2026-12-07T04:00:00.000001+01:00\",\"metadata\":{\"name\":\"e\",\"creationTimestamp\":"
        + "\"2026-12-07T03:00:00Z\"}}");
    RULES.checkIdentity(StrategiesTest.request("events", "POST", events, new Events().then(new KindSemantics(
        "events"))), ok, false);
    assertEquals("2026-12-07T03:00:00Z", ok.getString("firstTimestamp"));
    assertEquals("2026-12-07T03:00:00.000001Z", ok.getString("eventTime"));
    assertEquals(null, ok.getValue("lastTimestamp"));
    JsonObject zero = new JsonObject(ev + "\"firstTimestamp\":\"0001-01-01T00:00:00Z\"}");
    RULES.checkIdentity(StrategiesTest.request("events", "POST", events, new Events().then(new KindSemantics(
        "events"))), zero, false);
    assertEquals(false, zero.containsKey("firstTimestamp"), "Go's zero time is written as null: " + zero.encode());
    assertEquals("2026-12-07T03:00:00Z", ok.getJsonObject("metadata").getString("creationTimestamp"));
  }

  /**
   * Integer fields as encoding/json's literalStore reads them into their Go types: beyond int32 / int64, a fraction or
   * another JSON type is the 400 decoding error (never stored: typed clients could not read it back), with the
   * literal for a number ParseInt refuses; nested structs named as Go names them.
   */
  @Test
  void integersAreReadIntoTheirGoTypes() {
    String leases = "/apis/coordination.k8s.io/v1/namespaces/a/leases";
    String lease = "leases.coordination.k8s.io";
    String prefix = "Lease in version \"v1\" cannot be handled as a Lease: json: cannot unmarshal ";
    assertEquals(prefix + "number 99999999999 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32",
        refused(lease, leases, new Leases(), "{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":"
            + "99999999999}}").getMessage());
    assertEquals(prefix + "number 15.0 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32",
        refused(lease, leases, new Leases(), "{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":"
            + "15.0}}").getMessage());
    StatusException str = refused(lease, leases, new Leases(), "{\"metadata\":{\"name\":\"l\"},\"spec\":{"
        + "\"leaseTransitions\":\"15\"}}");
    assertEquals(400, str.code());
    assertEquals(prefix + "string into Go struct field LeaseSpec.spec.leaseTransitions of type int32", str.getMessage());
    accepted(lease, leases, new Leases(), "{\"metadata\":{\"name\":\"l\"},\"spec\":{\"leaseDurationSeconds\":"
        + "2147483647,\"leaseTransitions\":-2147483648}}");
    String events = "/api/v1/namespaces/a/events";
    String ev = "{\"metadata\":{\"name\":\"e\"},\"involvedObject\":{\"kind\":\"ConfigMap\",\"name\":\"c\"},";
    assertEquals("Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal number 99999999999 "
        + "into Go struct field Event.count of type int32", refused("events", events, new Events(), ev
        + "\"count\":99999999999}").getMessage());
    assertEquals("Event in version \"v1\" cannot be handled as a Event: json: cannot unmarshal number 2147483648 "
        + "into Go struct field EventSeries.series.count of type int32", refused("events", events, new Events(), ev
        + "\"series\":{\"count\":2147483648}}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number "
        + "99999999999999999999 into Go struct field ObjectMeta.metadata.generation of type int64", refused(
        "configmaps", "/api/v1/namespaces/a/configmaps", ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\",\"generation\":99999999999999999999}}").getMessage());
    assertEquals("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number "
        + "99999999999999999999 into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64",
        refused("configmaps", "/api/v1/namespaces/a/configmaps", ObjectStrategy.NONE,
            "{\"metadata\":{\"name\":\"c\",\"deletionGracePeriodSeconds\":99999999999999999999}}").getMessage());
  }

  @Test
  void secretTypeIsItsNamedGoType() {
    String secrets = "/api/v1/namespaces/a/secrets";
    assertEquals("Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal number into Go "
        + "struct field Secret.type of type v1.SecretType", refused("secrets", secrets, new Secrets(),
        "{\"metadata\":{\"name\":\"s\"},\"type\":5}").getMessage());
    assertEquals("Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal number into Go "
        + "struct field Secret.stringData of type string", refused("secrets", secrets, new Secrets(),
        "{\"metadata\":{\"name\":\"s\"},\"stringData\":{\"k\":1}}").getMessage());
  }
}
