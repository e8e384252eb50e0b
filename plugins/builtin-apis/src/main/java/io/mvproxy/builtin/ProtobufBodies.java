package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ForwardingApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.builtin.proto.ProtoBodies;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.RoutingContextInternal;
import java.util.Optional;

/**
 * A built-in source that also takes Kubernetes protobuf request bodies (kubectl's typed clients send them for
 * built-in kinds: {@code kubectl create namespace}, {@code create configmap}, {@code create rolebinding}): such a
 * body is decoded to JSON ({@link ProtoBodies}) and the request continues as {@code application/json} into the
 * shared REST surface. Everything else is forwarded unchanged ({@link ForwardingApiSource}) but the CRD
 * capability, which a built-in kind does not have.
 */
final class ProtobufBodies extends ForwardingApiSource {

  /** @param delegate the source serving JSON */
  ProtobufBodies(ApiSource delegate) {
    super(delegate);
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    if (ProtoBodies.isProtobuf(ctx.request().getHeader("Content-Type")) && ctx.body() != null
        && ctx.body().buffer() != null) {
      JsonObject json;
      try {
        json = ProtoBodies.decode(ctx.body().buffer().getBytes());
      } catch (StatusException e) {
        e.respond(ctx);
        return;
      }
      // the ingress' BodyHandler already read the body; the context API offers no public setter
      ((RoutingContextInternal) ctx).setBody(Buffer.buffer(json.encode()));
      ctx.request().headers().set("Content-Type", "application/json");
    }
    super.handle(ctx, info, user);
  }

  /**
   * Hidden on purpose: the wrapped built-in kind is a CRD-shaped source that offers its manifest, but a built-in
   * kind (served by the node, as kube-apiserver's) is no CustomResourceDefinition and must never be published as
   * one.
   *
   * @return empty
   */
  @Override
  public Optional<JsonObject> customResourceDefinition() {
    return Optional.empty();
  }
}
