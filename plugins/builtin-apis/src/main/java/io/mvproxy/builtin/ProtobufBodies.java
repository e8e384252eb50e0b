package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.builtin.proto.ProtoBodies;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.impl.RoutingContextInternal;
import java.util.List;

/**
 * A built-in source that also takes Kubernetes protobuf request bodies (kubectl's typed clients send them for
 * built-in kinds: {@code kubectl create namespace}, {@code create configmap}, {@code create rolebinding}): such a
 * body is decoded to JSON ({@link ProtoBodies}) and the request continues as {@code application/json} into the
 * shared REST surface. Everything else is delegated unchanged.
 */
final class ProtobufBodies implements ApiSource {
  private final ApiSource delegate;

  /** @param delegate the source serving JSON */
  ProtobufBodies(ApiSource delegate) {
    this.delegate = delegate;
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
    delegate.handle(ctx, info, user);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<ServedGroupVersion> groupVersions() {
    return delegate.groupVersions();
  }

  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return delegate.openApiV3(gv);
  }

  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return delegate.openApiV2(gv);
  }

  @Override
  public Future<Void> close() {
    return delegate.close();
  }
}
