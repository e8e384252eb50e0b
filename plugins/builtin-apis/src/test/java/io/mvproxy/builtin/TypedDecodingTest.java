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
    accepted("configmaps", cms, ObjectStrategy.NONE,
        "{\"metadata\":{\"name\":\"c\"},\"data\":{\"x\":\"5\",\"n\":null},\"immutable\":null,\"unknown\":5}");
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
