package io.mvproxy.openapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the {@code paths} of one CRD version, v2 or v3 flavour, following the routes of
 * {@code apiextensions-apiserver/pkg/controller/openapi/builder/builder.go} ({@code generateBuilder},
 * {@code buildRoute}) plus the {@code /watch/} routes every Kubernetes server lists, with operation ids and tags as
 * {@code apiserver/pkg/endpoints/openapi.GetOperationIDAndTags} makes them. Every operation carries
 * {@code x-kubernetes-action} and {@code x-kubernetes-group-version-kind} as an OBJECT; POST, PUT and PATCH carry an
 * inline {@code fieldValidation} query parameter (kubectl's {@code QueryParamVerifier} looks for it on PATCH).
 */
final class CrdPaths {
  /**
   * Custom resources take no strategic merge patch; kubectl (1.27+) sends one when the v3 PATCH operation of the
   * kind lists {@code application/strategic-merge-patch+json}, so it must not.
   */
  private static final List<String> PATCH_TYPES = List.of("application/apply-patch+yaml",
      "application/json-patch+json", "application/merge-patch+json");

  /** The parameter set an operation takes ({@code endpoints.AddObjectParams} for each options type). */
  private enum Params { GET, LIST, CREATE, UPDATE, PATCH, DELETE }

  /**
   * One route.
   *
   * @param method     lower-case HTTP method
   * @param action     {@code x-kubernetes-action}
   * @param opId       the operation id
   * @param path       the full path
   * @param response   definition name of the 200 response
   * @param body       definition name of the request body, or null
   * @param params     the query parameter set
   * @param description the operation description
   */
  private record Route(String method, String action, String opId, String path, String response, String body,
                       Params params, String description) {
  }

  /**
   * The names of one CRD version.
   *
   * @param group      API group
   * @param version    API version
   * @param kind       kind
   * @param plural     resource plural
   * @param namespaced true for namespaced resources
   * @param objectDef  definition name of the kind
   * @param listDef    definition name of the list kind
   */
  record Names(String group, String version, String kind, String plural, boolean namespaced, String objectDef,
               String listDef) {
    JsonObject gvk() {
      return new JsonObject().put("group", group).put("version", version).put("kind", kind);
    }
  }

  private CrdPaths() {
  }

  /**
   * @param n      the names
   * @param v2     true for OpenAPI v2 operations, false for v3
   * @param status true when the status subresource is enabled
   * @param scale  true when the scale subresource is enabled
   * @return the {@code paths} object
   */
  static JsonObject build(Names n, boolean v2, boolean status, boolean scale) {
    JsonObject paths = new JsonObject();
    for (Route r : routes(n, status, scale)) {
      JsonObject item = paths.getJsonObject(r.path);
      if (item == null) {
        item = new JsonObject();
        paths.put(r.path, item);
      }
      item.put(r.method, operation(n, r, v2));
      item.put("parameters", pathParameters(n, r.path, v2));
    }
    return paths;
  }

  private static List<Route> routes(Names n, boolean status, boolean scale) {
    String gvPrefix = n.group.isEmpty() ? "/api/" + n.version : "/apis/" + n.group + "/" + n.version;
    String gvId = gvIdPart(n.group, n.version);
    String ns = n.namespaced ? "Namespaced" : "";
    String k = n.kind;
    String root = n.namespaced ? gvPrefix + "/namespaces/{namespace}/" + n.plural : gvPrefix + "/" + n.plural;
    String watchRoot = n.namespaced ? gvPrefix + "/watch/namespaces/{namespace}/" + n.plural
        : gvPrefix + "/watch/" + n.plural;
    String item = root + "/{name}";
    List<Route> r = new ArrayList<>();
    if (n.namespaced) {
      r.add(new Route("get", "list", "list" + gvId + k + "ForAllNamespaces", gvPrefix + "/" + n.plural, n.listDef,
          null, Params.LIST, "list objects of kind " + k));
      r.add(new Route("get", "watchlist", "watch" + gvId + k + "ListForAllNamespaces",
          gvPrefix + "/watch/" + n.plural, SchemaRefs.WATCH_EVENT, null, Params.LIST,
          "watch individual changes to a list of " + k + ". deprecated: use the 'watch' parameter with a list "
              + "operation instead."));
    }
    r.add(new Route("get", "list", "list" + gvId + ns + k, root, n.listDef, null, Params.LIST,
        "list objects of kind " + k));
    r.add(new Route("post", "post", "create" + gvId + ns + k, root, n.objectDef, n.objectDef, Params.CREATE,
        "create " + article(k) + k));
    r.add(new Route("delete", "deletecollection", "deletecollection" + gvId + ns + k, root, SchemaRefs.STATUS, null,
        Params.LIST, "delete collection of " + k));
    r.add(new Route("get", "get", "read" + gvId + ns + k, item, n.objectDef, null, Params.GET,
        "read the specified " + k));
    r.add(new Route("put", "put", "replace" + gvId + ns + k, item, n.objectDef, n.objectDef, Params.UPDATE,
        "replace the specified " + k));
    r.add(new Route("delete", "delete", "delete" + gvId + ns + k, item, SchemaRefs.STATUS,
        SchemaRefs.DELETE_OPTIONS, Params.DELETE, "delete " + article(k) + k));
    r.add(new Route("patch", "patch", "patch" + gvId + ns + k, item, n.objectDef, SchemaRefs.PATCH, Params.PATCH,
        "partially update the specified " + k));
    if (status) {
      String p = item + "/status";
      r.add(new Route("get", "get", "read" + gvId + ns + k + "Status", p, n.objectDef, null, Params.GET,
          "read status of the specified " + k));
      r.add(new Route("put", "put", "replace" + gvId + ns + k + "Status", p, n.objectDef, n.objectDef,
          Params.UPDATE, "replace status of the specified " + k));
      r.add(new Route("patch", "patch", "patch" + gvId + ns + k + "Status", p, n.objectDef, SchemaRefs.PATCH,
          Params.PATCH, "partially update status of the specified " + k));
    }
    if (scale) {
      String p = item + "/scale";
      r.add(new Route("get", "get", "read" + gvId + ns + k + "Scale", p, SchemaRefs.SCALE, null, Params.GET,
          "read scale of the specified " + k));
      r.add(new Route("put", "put", "replace" + gvId + ns + k + "Scale", p, SchemaRefs.SCALE, SchemaRefs.SCALE,
          Params.UPDATE, "replace scale of the specified " + k));
      r.add(new Route("patch", "patch", "patch" + gvId + ns + k + "Scale", p, SchemaRefs.SCALE, SchemaRefs.PATCH,
          Params.PATCH, "partially update scale of the specified " + k));
    }
    r.add(new Route("get", "watchlist", "watch" + gvId + ns + k + "List", watchRoot, SchemaRefs.WATCH_EVENT, null,
        Params.LIST, "watch individual changes to a list of " + k + ". deprecated: use the 'watch' parameter with a "
            + "list operation instead."));
    r.add(new Route("get", "watch", "watch" + gvId + ns + k, watchRoot + "/{name}", SchemaRefs.WATCH_EVENT, null,
        Params.LIST, "watch changes to an object of kind " + k + ". deprecated: use the 'watch' parameter with a "
            + "list operation instead, filtered to a single item with the 'fieldSelector' parameter."));
    return r;
  }

  private static JsonObject operation(Names n, Route r, boolean v2) {
    JsonObject op = new JsonObject()
        .put("tags", new JsonArray().add(tag(n.group, n.version)))
        .put("description", r.description)
        .put("operationId", r.opId);
    JsonArray params = new JsonArray();
    for (QueryParams.QueryParam p : queryParams(r.params)) {
      params.add(parameter(p.name(), "query", p.type(), p.description(), false, v2));
    }
    boolean isWatch = r.action.startsWith("watch");
    boolean isList = "list".equals(r.action) || isWatch;
    JsonArray produces = new JsonArray().add("application/json").add("application/yaml");
    if (isList) {
      produces.add("application/json;stream=watch");
    }
    boolean bodyRequired = r.body != null && !"delete".equals(r.method);
    if (v2) {
      JsonArray consumes = new JsonArray();
      if ("patch".equals(r.method)) {
        for (String t : PATCH_TYPES) {
          consumes.add(t);
        }
      } else {
        consumes.add("*/*");
      }
      op.put("consumes", consumes).put("produces", produces).put("schemes", new JsonArray().add("https"));
      if (r.body != null) {
        JsonArray all = new JsonArray().add(new JsonObject().put("name", "body").put("in", "body")
            .put("required", bodyRequired).put("schema", SchemaRefs.ref(true, r.body)));
        all.addAll(params);
        params = all;
      }
      op.put("parameters", params);
      JsonObject responses = new JsonObject().put("200", v2Response("OK", r.response));
      extraCodes(r).forEach(c -> responses.put(c[0], v2Response(c[1], r.response)));
      op.put("responses", responses.put("401", new JsonObject().put("description", "Unauthorized")));
    } else {
      op.put("parameters", params);
      if (r.body != null) {
        JsonObject content = new JsonObject();
        if ("patch".equals(r.method)) {
          for (String t : PATCH_TYPES) {
            content.put(t, new JsonObject().put("schema", SchemaRefs.ref(false, r.body)));
          }
        } else {
          content.put("*/*", new JsonObject().put("schema", SchemaRefs.ref(false, r.body)));
        }
        JsonObject body = new JsonObject().put("content", content);
        if (bodyRequired) {
          body.put("required", true);
        }
        op.put("requestBody", body);
      }
      JsonObject responses = new JsonObject().put("200", v3Response("OK", r.response, produces));
      extraCodes(r).forEach(c -> responses.put(c[0], v3Response(c[1], r.response, produces)));
      op.put("responses", responses.put("401", new JsonObject().put("description", "Unauthorized")));
    }
    return op.put("x-kubernetes-action", r.action).put("x-kubernetes-group-version-kind", n.gvk());
  }

  private static List<String[]> extraCodes(Route r) {
    return switch (r.action) {
      case "post" -> List.of(new String[] {"201", "Created"}, new String[] {"202", "Accepted"});
      case "put" -> List.<String[]>of(new String[] {"201", "Created"});
      case "delete" -> List.<String[]>of(new String[] {"202", "Accepted"});
      default -> List.of();
    };
  }

  private static JsonObject v2Response(String description, String def) {
    return new JsonObject().put("description", description).put("schema", SchemaRefs.ref(true, def));
  }

  private static JsonObject v3Response(String description, String def, JsonArray produces) {
    JsonObject content = new JsonObject();
    for (Object mt : produces) {
      content.put((String) mt, new JsonObject().put("schema", SchemaRefs.ref(false, def)));
    }
    return new JsonObject().put("description", description).put("content", content);
  }

  private static JsonArray pathParameters(Names n, String path, boolean v2) {
    JsonArray a = new JsonArray();
    if (path.contains("{name}")) {
      a.add(parameter("name", "path", "string", "name of the " + n.kind, true, v2));
    }
    if (path.contains("{namespace}")) {
      a.add(parameter("namespace", "path", "string", "object name and auth scope, such as for teams and projects",
          true, v2));
    }
    return a.add(parameter("pretty", "query", "string", "If 'true', then the output is pretty printed. Defaults to "
        + "'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).", false, v2));
  }

  private static JsonObject parameter(String name, String in, String type, String description, boolean required,
                                      boolean v2) {
    JsonObject p = new JsonObject().put("name", name).put("in", in).put("description", description);
    if (required) {
      p.put("required", true);
    }
    if (v2) {
      return p.put("type", type).put("uniqueItems", true);
    }
    return p.put("schema", new JsonObject().put("type", type).put("uniqueItems", true));
  }

  private static List<QueryParams.QueryParam> queryParams(Params set) {
    return switch (set) {
      case GET -> List.of(QueryParams.RESOURCE_VERSION);
      case LIST -> QueryParams.LIST;
      case CREATE, UPDATE -> List.of(QueryParams.DRY_RUN, QueryParams.FIELD_MANAGER, QueryParams.FIELD_VALIDATION);
      case PATCH -> List.of(QueryParams.DRY_RUN, QueryParams.FIELD_MANAGER, QueryParams.FIELD_VALIDATION,
          QueryParams.FORCE);
      case DELETE -> QueryParams.DELETE;
    };
  }

  /** @return the operation id infix, e.g. {@code StableExampleComV1} for {@code stable.example.com/v1} */
  static String gvIdPart(String group, String version) {
    StringBuilder sb = new StringBuilder();
    for (String part : (group.isEmpty() ? "core" : group).split("[.\\-]")) {
      if (!part.isEmpty()) {
        sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return sb.append(Character.toUpperCase(version.charAt(0))).append(version.substring(1)).toString();
  }

  /** @return the operation tag, e.g. {@code stableExampleCom_v1} */
  static String tag(String group, String version) {
    String id = gvIdPart(group, "x");
    return Character.toLowerCase(id.charAt(0)) + id.substring(1, id.length() - 1) + "_" + version;
  }

  private static String article(String kind) {
    return "AEIOU".indexOf(Character.toUpperCase(kind.charAt(0))) >= 0 ? "an " : "a ";
  }
}
