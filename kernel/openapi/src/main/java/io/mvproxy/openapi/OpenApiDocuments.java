package io.mvproxy.openapi;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's OpenAPI documents, built once per change and then served as is:
 * <ul>
 *   <li>{@code /openapi/v3}: {@code {"paths": {"apis/<g>/<v>": {"serverRelativeURL":
 *       "/openapi/v3/apis/<g>/<v>?hash=<HASH>"}}}} for every FLEET group-version (core: {@code api/v1}), as
 *       {@code kube-openapi/pkg/handler3} serves it;</li>
 *   <li>{@code /openapi/v3/apis/<g>/<v>} for each LOCAL group-version: {@code openapi: 3.0.0}, info, and the merged
 *       {@code paths} and {@code components.schemas} of the v3 fragments of every local {@link ApiSource} serving it
 *       ({@code kube-openapi/pkg/builder3} layout);</li>
 *   <li>{@code /openapi/v2}: {@code swagger: "2.0"} merged from all local v2 fragments, as JSON and as gnostic
 *       protobuf ({@link SwaggerProtobuf}) for kubectl 1.27/1.28.</li>
 * </ul>
 * Map keys are sorted so that nodes with the same sources produce byte-identical documents and hashes.
 * Immutable and thread-safe.
 */
public final class OpenApiDocuments {
  /** {@code Content-Type} of JSON documents. */
  public static final String JSON = "application/json";
  /** The media type kubectl 1.27/1.28 {@code Accept} for the protobuf v2 document. */
  public static final String V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
  /**
   * The {@code Content-Type} sent with the protobuf v2 document: the dotted alias, as {@code kube-openapi/pkg/handler}
   * returns, because Go's {@code mime.ParseMediaType} (client-go) rejects the {@code @} of {@link #V2_PROTOBUF}.
   */
  public static final String V2_PROTOBUF_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

  private static final System.Logger LOG = System.getLogger(OpenApiDocuments.class.getName());

  private final Map<GroupVersion, ServedDocument> v3;
  private final Map<GroupVersion, String> fleet;
  private final ServedDocument v3Root;
  private final ServedDocument v2Json;
  private final ServedDocument v2Protobuf;

  private OpenApiDocuments(Map<GroupVersion, ServedDocument> v3, Map<GroupVersion, String> fleet,
                           ServedDocument v3Root, ServedDocument v2Json, ServedDocument v2Protobuf) {
    this.v3 = v3;
    this.fleet = fleet;
    this.v3Root = v3Root;
    this.v2Json = v2Json;
    this.v2Protobuf = v2Protobuf;
  }

  /** @return documents for a node with no APIs and no peers (empty root, empty v2) */
  public static OpenApiDocuments empty() {
    return fromFragments(Map.of(), List.of(), List.of());
  }

  /**
   * Builds the documents from the local sources' fragments. CPU-bound (large CRDs: tens of milliseconds); call it off
   * the event loop, e.g. through {@link #buildAsync}. A source whose fragment method throws is logged and skipped.
   *
   * @param sources the local API sources
   * @param fleet   every group-version the fleet serves (local and peers'); local ones may be omitted
   * @return the documents
   */
  public static OpenApiDocuments build(Collection<? extends ApiSource> sources, Collection<GroupVersion> fleet) {
    Map<GroupVersion, List<JsonObject>> v3 = new TreeMap<>();
    List<JsonObject> v2 = new ArrayList<>();
    for (ApiSource source : sources) {
      for (ServedGroupVersion sgv : source.groupVersions()) {
        GroupVersion gv = sgv.groupVersion();
        try {
          JsonObject f3 = source.openApiV3(gv);
          if (f3 != null) {
            v3.computeIfAbsent(gv, k -> new ArrayList<>()).add(f3);
          }
          JsonObject f2 = source.openApiV2(gv);
          if (f2 != null) {
            v2.add(f2);
          }
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "OpenAPI fragment of " + source.name() + " for " + gv + " failed", e);
        }
      }
    }
    return fromFragments(v3, v2, fleet);
  }

  /**
   * {@link #build} on a worker thread.
   *
   * @param vertx   the Vert.x instance
   * @param sources the local API sources (their fragment methods are called on a worker thread)
   * @param fleet   every group-version the fleet serves
   * @return the documents
   */
  public static Future<OpenApiDocuments> buildAsync(Vertx vertx, Collection<? extends ApiSource> sources,
                                                    Collection<GroupVersion> fleet) {
    List<ApiSource> copy = List.copyOf(sources);
    List<GroupVersion> fleetCopy = List.copyOf(fleet);
    return vertx.executeBlocking(() -> build(copy, fleetCopy), false);
  }

  /**
   * Builds the documents from fragments.
   *
   * @param v3Fragments per local group-version, the v3 fragments ({@code paths}, {@code components.schemas})
   * @param v2Fragments the v2 fragments ({@code paths}, {@code definitions})
   * @param fleet       every group-version the fleet serves; local ones are added
   * @return the documents
   */
  public static OpenApiDocuments fromFragments(Map<GroupVersion, List<JsonObject>> v3Fragments,
                                               List<JsonObject> v2Fragments, Collection<GroupVersion> fleet) {
    Map<GroupVersion, ServedDocument> v3 = new TreeMap<>();
    v3Fragments.forEach((gv, fragments) -> v3.put(gv, json(v3Document(fragments))));
    Map<GroupVersion, String> fleetHashes = new TreeMap<>();
    for (GroupVersion gv : fleet) {
      // a peer's document hash is unknown here; the hash only makes the URL change when the fleet changes, the
      // content is revalidated with its ETag
      fleetHashes.put(gv, ServedDocument.sha512("remote " + gv.apiVersion()).substring(0, 32));
    }
    v3.forEach((gv, doc) -> fleetHashes.put(gv, doc.hash()));
    JsonObject rootPaths = new JsonObject();
    fleetHashes.forEach((gv, hash) -> rootPaths.put(key(gv), new JsonObject()
        .put("serverRelativeURL", "/openapi/v3/" + key(gv) + "?hash=" + hash)));
    ServedDocument root = json(new JsonObject().put("paths", rootPaths));
    JsonObject swagger = v2Document(v2Fragments);
    ServedDocument v2Json = json(swagger);
    ServedDocument v2Pb = ServedDocument.of(SwaggerProtobuf.encode(swagger), V2_PROTOBUF_CONTENT_TYPE);
    return new OpenApiDocuments(Collections.unmodifiableMap(v3), Collections.unmodifiableMap(fleetHashes), root,
        v2Json, v2Pb);
  }

  /** @return the {@code /openapi/v3} root */
  public ServedDocument v3Root() {
    return v3Root;
  }

  /**
   * @param gv a group-version
   * @return its {@code /openapi/v3/...} document when served locally, else null
   */
  public ServedDocument v3(GroupVersion gv) {
    return v3.get(gv);
  }

  /**
   * @param gv a group-version
   * @return true when some node of the fleet (maybe this one) serves it
   */
  public boolean inFleet(GroupVersion gv) {
    return fleet.containsKey(gv);
  }

  /** @return the local group-versions that have a v3 document */
  public Collection<GroupVersion> localGroupVersions() {
    return v3.keySet();
  }

  /** @return {@code /openapi/v2} as JSON */
  public ServedDocument v2Json() {
    return v2Json;
  }

  /** @return {@code /openapi/v2} as gnostic protobuf */
  public ServedDocument v2Protobuf() {
    return v2Protobuf;
  }

  /**
   * @param gv a group-version
   * @return its key in the v3 root: {@code apis/<g>/<v>}, or {@code api/<v>} for the core group
   */
  public static String key(GroupVersion gv) {
    return gv.pathPrefix().substring(1);
  }

  private static JsonObject v3Document(List<JsonObject> fragments) {
    Map<String, Object> paths = new TreeMap<>();
    Map<String, Object> schemas = new TreeMap<>();
    for (JsonObject f : fragments) {
      mergeInto(paths, f.getJsonObject("paths"), true);
      JsonObject comp = f.getJsonObject("components");
      mergeInto(schemas, comp == null ? null : comp.getJsonObject("schemas"), false);
    }
    return new JsonObject().put("openapi", "3.0.0")
        .put("info", new JsonObject().put("title", "Kubernetes").put("version", "unversioned"))
        .put("paths", new JsonObject(new LinkedHashMap<>(paths)))
        .put("components", new JsonObject().put("schemas", new JsonObject(new LinkedHashMap<>(schemas))));
  }

  private static JsonObject v2Document(List<JsonObject> fragments) {
    Map<String, Object> paths = new TreeMap<>();
    Map<String, Object> defs = new TreeMap<>();
    for (JsonObject f : fragments) {
      mergeInto(paths, f.getJsonObject("paths"), true);
      mergeInto(defs, f.getJsonObject("definitions"), false);
    }
    return new JsonObject().put("swagger", "2.0")
        .put("info", new JsonObject().put("title", "Kubernetes").put("version", "unversioned"))
        .put("paths", new JsonObject(new LinkedHashMap<>(paths)))
        .put("definitions", new JsonObject(new LinkedHashMap<>(defs)));
  }

  /**
   * Adds the entries of {@code from}; a later definition of the same name wins; with {@code mergeItems} (paths) the
   * operations of a path present twice are merged.
   */
  private static void mergeInto(Map<String, Object> into, JsonObject from, boolean mergeItems) {
    if (from == null) {
      return;
    }
    from.forEach(e -> {
      Object old = into.get(e.getKey());
      if (old instanceof JsonObject o && e.getValue() instanceof JsonObject n && mergeItems) {
        into.put(e.getKey(), o.copy().mergeIn(n));
      } else {
        into.put(e.getKey(), e.getValue());
      }
    });
  }

  private static ServedDocument json(JsonObject doc) {
    return ServedDocument.of(doc.encode().getBytes(StandardCharsets.UTF_8), JSON);
  }
}
