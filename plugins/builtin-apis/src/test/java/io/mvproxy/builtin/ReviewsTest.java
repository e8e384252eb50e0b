package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.authorization.NodeAuthorization;
import io.mvproxy.builtin.proto.ProtoBodies;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class ReviewsTest {
  static final UserInfo ALICE = new UserInfo("alice", "u1", List.of("dev", "system:authenticated"), Map.of());
  final AccessReviews access = new AccessReviews(new NodeAuthorization(List.of("RBAC")));

  /** One length-delimited field. */
  static byte[] field(int number, byte[] value) throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    CodedOutputStream o = CodedOutputStream.newInstance(b);
    o.writeBytes(number, ByteString.copyFrom(value));
    o.flush();
    return b.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b.toByteArray();
  }

  static byte[] s(String v) {
    return v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void protobufSelfSubjectAccessReviewAsKubectlSendsIt() throws Exception {
    byte[] attrs = concat(field(1, s("ns1")), field(2, s("list")), field(3, s("demo.example.com")),
        field(5, s("widgets")));
    byte[] spec = field(1, attrs);
    byte[] obj = concat(field(1, new byte[0]), field(2, spec));
    byte[] typeMeta = concat(field(1, s("authorization.k8s.io/v1")), field(2, s("SelfSubjectAccessReview")));
    byte[] unknown = concat(field(1, typeMeta), field(2, obj), field(4, s("")));
    JsonObject json = ProtoBodies.decode(concat(new byte[] {'k', '8', 's', 0}, unknown));
    assertEquals(new JsonObject().put("kind", "SelfSubjectAccessReview").put("apiVersion", "authorization.k8s.io/v1")
        .put("metadata", new JsonObject()).put("spec", new JsonObject().put("resourceAttributes", new JsonObject()
            .put("namespace", "ns1").put("verb", "list").put("group", "demo.example.com").put("resource", "widgets"))),
        json);
    JsonObject out = access.selfSubjectAccessReview(json, ALICE);
    assertEquals(new JsonObject().put("allowed", false), out.getJsonObject("status"));
    assertEquals(400, assertThrows(StatusException.class, () -> ProtoBodies.decode(s("{}"))).code());
  }

  @Test
  void accessReviews() {
    JsonObject ssar = new JsonObject().put("spec", new JsonObject().put("nonResourceAttributes",
        new JsonObject().put("path", "/apis").put("verb", "get")));
    JsonObject st = access.selfSubjectAccessReview(ssar, ALICE).getJsonObject("status");
    assertEquals(true, st.getBoolean("allowed"));
    assertEquals("RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \"system:discovery\" to Group "
        + "\"system:authenticated\"", st.getString("reason"));
    StatusException none = assertThrows(StatusException.class,
        () -> access.selfSubjectAccessReview(new JsonObject().put("spec", new JsonObject()), ALICE));
    assertEquals(422, none.code());
    assertEquals("SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: "
        + "\"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified", none.getMessage());
    JsonObject sar = new JsonObject().put("spec", new JsonObject().put("user", "x").put("groups",
        new io.vertx.core.json.JsonArray().add("system:masters")).put("resourceAttributes",
        new JsonObject().put("verb", "delete").put("resource", "secrets").put("namespace", "a")));
    assertEquals(true, access.subjectAccessReview(sar).getJsonObject("status").getBoolean("allowed"));
    JsonObject lsar = new JsonObject().put("spec", new JsonObject().put("user", "x").put("resourceAttributes",
        new JsonObject().put("verb", "get").put("resource", "secrets").put("namespace", "other")));
    assertEquals("spec.resourceAttributes.namespace must match namespace: a",
        assertThrows(StatusException.class, () -> access.localSubjectAccessReview(lsar, "a")).getMessage());
    JsonObject rules = access.selfSubjectRulesReview(new JsonObject().put("spec", new JsonObject().put("namespace",
        "default")), ALICE).getJsonObject("status");
    assertEquals(false, rules.getBoolean("incomplete"));
    assertEquals(new JsonObject().put("verbs", new io.vertx.core.json.JsonArray().add("create"))
        .put("apiGroups", new io.vertx.core.json.JsonArray().add("authorization.k8s.io"))
        .put("resources", new io.vertx.core.json.JsonArray().add("selfsubjectaccessreviews").add("selfsubjectrulesreviews")),
        rules.getJsonArray("resourceRules").getJsonObject(0));
    assertEquals(400, assertThrows(StatusException.class, () -> access.selfSubjectRulesReview(new JsonObject(), ALICE))
        .code());
  }

  @Test
  void authenticationReviews() {
    AuthenticationReviews r = new AuthenticationReviews((t, auds) -> io.vertx.core.Future.succeededFuture(
        "good".equals(t) ? new io.mvproxy.security.Authenticator.Review(ALICE, auds, null)
            : new io.mvproxy.security.Authenticator.Review(null, java.util.List.of(), "invalid bearer token")));
    assertEquals(new JsonObject().put("username", "alice").put("uid", "u1").put("groups",
        new io.vertx.core.json.JsonArray().add("dev").add("system:authenticated")),
        r.selfSubjectReview(new JsonObject(), "authentication.k8s.io/v1beta1", ALICE).getJsonObject("status")
            .getJsonObject("userInfo"));
    assertEquals(true, r.tokenReview(new JsonObject().put("spec", new JsonObject().put("token", "good")))
        .result().getJsonObject("status").getBoolean("authenticated"));
    assertEquals(new JsonObject().put("user", new JsonObject()).put("error", "invalid bearer token"),
        r.tokenReview(new JsonObject().put("spec", new JsonObject().put("token", "bad"))).result()
            .getJsonObject("status"));
  }
}
