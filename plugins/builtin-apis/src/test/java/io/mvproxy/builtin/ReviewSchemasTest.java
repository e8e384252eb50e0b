package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The review APIs' OpenAPI describes their fields and only their create operation. */
@Tag("unit")
class ReviewSchemasTest {
  final ReviewsApiSource reviews = new ReviewsApiSource(null, null);

  @Test
  void authorizationKindsWithTheirFieldsAndPostOnly() {
    JsonObject v3 = reviews.openApiV3(ReviewsApiSource.AUTHORIZATION_V1);
    JsonObject paths = v3.getJsonObject("paths");
    assertEquals(List.of("/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews"), paths.fieldNames().stream().sorted().toList());
    JsonObject ssar = paths.getJsonObject("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews");
    assertTrue(ssar.containsKey("post") && !ssar.containsKey("get") && !ssar.containsKey("delete"), ssar.encode());
    assertEquals("post", ssar.getJsonObject("post").getString("x-kubernetes-action"));
    JsonObject schema = v3.getJsonObject("components").getJsonObject("schemas")
        .getJsonObject("io.k8s.authorization.v1.SelfSubjectAccessReview");
    JsonObject attrs = schema.getJsonObject("properties").getJsonObject("spec").getJsonObject("properties")
        .getJsonObject("resourceAttributes").getJsonObject("properties");
    assertEquals(List.of("namespace", "verb", "group", "version", "resource", "subresource", "name"),
        List.copyOf(attrs.fieldNames()));
    assertEquals("[\"allowed\"]", schema.getJsonObject("properties").getJsonObject("status")
        .getJsonArray("required").encode());
    JsonObject v2 = reviews.openApiV2(ReviewsApiSource.AUTHENTICATION_V1);
    assertTrue(v2.getJsonObject("definitions").getJsonObject("io.k8s.authentication.v1.TokenReview")
        .getJsonObject("properties").getJsonObject("status").getJsonObject("properties").containsKey("audiences"));
    assertTrue(v2.getJsonObject("paths").getJsonObject("/apis/authentication.k8s.io/v1/selfsubjectreviews")
        .containsKey("post"));
  }
}
