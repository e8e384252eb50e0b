package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * Serves the review APIs (create only, answer 201, nothing stored): {@code authorization.k8s.io/v1}
 * selfsubjectaccessreviews, selfsubjectrulesreviews, subjectaccessreviews, localsubjectaccessreviews (namespaced);
 * {@code authentication.k8s.io/v1} selfsubjectreviews and tokenreviews, and {@code v1beta1} selfsubjectreviews
 * (asked for by kubectl 1.27). Group priorities as kube-apiserver: 17600/15 and 17700/15 (v1beta1: 9). Any other
 * verb: 405; a namespace on a cluster-scoped review: 404.
 */
public final class ReviewsApiSource implements ApiSource {
  /** {@code authorization.k8s.io/v1}. */
  public static final GroupVersion AUTHORIZATION_V1 = new GroupVersion("authorization.k8s.io", "v1");
  /** {@code authentication.k8s.io/v1}. */
  public static final GroupVersion AUTHENTICATION_V1 = new GroupVersion("authentication.k8s.io", "v1");
  /** {@code authentication.k8s.io/v1beta1}. */
  public static final GroupVersion AUTHENTICATION_V1BETA1 = new GroupVersion("authentication.k8s.io", "v1beta1");
  private static final List<String> CREATE = List.of("create");

  private final AccessReviews access;
  private final AuthenticationReviews authentication;

  /**
   * @param access         access reviews over the node's authorization
   * @param authentication self subject and token reviews
   */
  public ReviewsApiSource(AccessReviews access, AuthenticationReviews authentication) {
    this.access = access;
    this.authentication = authentication;
  }

  @Override
  public String name() {
    return "builtin/reviews";
  }

  @Override
  public List<ServedGroupVersion> groupVersions() {
    return List.of(
        new ServedGroupVersion(AUTHENTICATION_V1, 17700, 15, List.of(
            resource(AUTHENTICATION_V1, "selfsubjectreviews", "SelfSubjectReview", false),
            resource(AUTHENTICATION_V1, "tokenreviews", "TokenReview", false)), Freshness.Current),
        new ServedGroupVersion(AUTHENTICATION_V1BETA1, 17700, 9, List.of(
            resource(AUTHENTICATION_V1BETA1, "selfsubjectreviews", "SelfSubjectReview", false)), Freshness.Current),
        new ServedGroupVersion(AUTHORIZATION_V1, 17600, 15, List.of(
            resource(AUTHORIZATION_V1, "localsubjectaccessreviews", "LocalSubjectAccessReview", true),
            resource(AUTHORIZATION_V1, "selfsubjectaccessreviews", "SelfSubjectAccessReview", false),
            resource(AUTHORIZATION_V1, "selfsubjectrulesreviews", "SelfSubjectRulesReview", false),
            resource(AUTHORIZATION_V1, "subjectaccessreviews", "SubjectAccessReview", false)), Freshness.Current));
  }

  private static DiscoveryResource resource(GroupVersion gv, String plural, String kind, boolean namespaced) {
    return new DiscoveryResource(plural, kind.toLowerCase(), new ResponseKind(gv.group(), gv.version(), kind),
        namespaced, CREATE, List.of(), List.of(), List.of(), null);
  }

  /** @return the kinds' fields and their create operation ({@link ReviewSchemas}), or null for another group-version */
  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return groupVersions().stream().filter(s -> s.groupVersion().equals(gv)).findFirst()
        .map(s -> ReviewSchemas.fragment(s, false)).orElse(null);
  }

  /** @return the Swagger 2 form of {@link #openApiV3} */
  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return groupVersions().stream().filter(s -> s.groupVersion().equals(gv)).findFirst()
        .map(s -> ReviewSchemas.fragment(s, true)).orElse(null);
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    boolean local = "localsubjectaccessreviews".equals(info.resource());
    if (local == info.namespace().isEmpty() || !info.subresource().isEmpty()
        || (!info.name().isEmpty() && !"create".equals(info.verb()))) {
      throw StatusException.resourceNotFound();
    }
    if (!"create".equals(info.verb()) || !info.name().isEmpty()) {
      throw StatusException.methodNotAllowed();
    }
    JsonObject body = body(ctx);
    String apiVersion = info.groupVersion().apiVersion();
    if ("authentication.k8s.io/tokenreviews".equals(info.group() + "/" + info.resource())) {
      authentication.tokenReview(body).onComplete(ar -> {
        if (ar.failed()) {
          (ar.cause() instanceof StatusException se ? se : StatusException.internal(ar.cause())).respond(ctx);
        } else {
          created(ctx, ar.result().put("apiVersion", apiVersion));
        }
      });
      return;
    }
    JsonObject out = switch (info.group() + "/" + info.resource()) {
      case "authorization.k8s.io/selfsubjectaccessreviews" -> access.selfSubjectAccessReview(body, user);
      case "authorization.k8s.io/subjectaccessreviews" -> access.subjectAccessReview(body);
      case "authorization.k8s.io/localsubjectaccessreviews" -> access.localSubjectAccessReview(body, info.namespace());
      case "authorization.k8s.io/selfsubjectrulesreviews" -> access.selfSubjectRulesReview(body, user);
      case "authentication.k8s.io/selfsubjectreviews" -> authentication.selfSubjectReview(body, apiVersion, user);
      default -> throw StatusException.resourceNotFound();
    };
    created(ctx, out.put("apiVersion", apiVersion));
  }

  private static void created(RoutingContext ctx, JsonObject out) {
    ctx.response().setStatusCode(201).putHeader("Content-Type", "application/json").end(out.encode());
  }

  /**
   * @param ctx a create request
   * @return its JSON (or Kubernetes protobuf) body as JSON
   * @throws StatusException 400 for an empty or undecodable body
   */
  static JsonObject body(RoutingContext ctx) {
    Buffer b = ctx.body() == null ? null : ctx.body().buffer();
    if (b == null || b.length() == 0) {
      throw StatusException.badRequest("the body of the request was in an unknown format - accepted media types "
          + "include: application/json");
    }
    if (io.mvproxy.builtin.proto.ProtoBodies.isProtobuf(ctx.request().getHeader("Content-Type"))) {
      return io.mvproxy.builtin.proto.ProtoBodies.decode(b.getBytes());
    }
    try {
      return new JsonObject(b);
    } catch (DecodeException | ClassCastException e) {
      throw StatusException.badRequest("the object provided is not valid JSON: " + e.getMessage());
    }
  }
}
