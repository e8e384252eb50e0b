package io.mvproxy.openapi;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/** A test ApiSource publishing the OpenAPI fragments of one CRD through {@link CrdOpenApi}. */
final class CrdSource implements ApiSource {
  private final CrdOpenApi api;

  CrdSource(JsonObject crd) {
    this.api = new CrdOpenApi(crd);
  }

  @Override
  public String name() {
    return "test/" + api.groupVersion("x").group();
  }

  @Override
  public List<ServedGroupVersion> groupVersions() {
    return api.servedVersions().stream()
        .map(v -> new ServedGroupVersion(api.groupVersion(v), 1000, 100, List.of(), Freshness.Current)).toList();
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    ctx.response().setStatusCode(501).end();
  }

  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return api.v3(gv.version());
  }

  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return api.v2(gv.version());
  }
}
