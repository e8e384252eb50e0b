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
 *   <li>{@code /openapi/v3/apis/<g>/<v>} for each group-version served locally or documented by peers:
 *       {@code openapi: 3.0.0}, info, and the merged {@code paths} and {@code components.schemas} of the v3 fragments
 *       of every local {@link ApiSource} serving it ({@code kube-openapi/pkg/builder3} layout), then of the
 *       {@link PeerFragments} for the resources only peers serve (a local path or schema name always wins);</li>
 *   <li>{@code /openapi/v2}: {@code swagger: "2.0"} merged from all local v2 fragments, then the peers' ones, as JSON
 *       and as gnostic protobuf ({@link SwaggerProtobuf}) for kubectl 1.27/1.28.</li>
 * </ul>
 * A local source without fragments (a code plugin) is described by {@link DeclaredOpenApi} from its discovery
 * declaration, except an aggregated API ({@link ApiSource#servesWholeGroupVersion()}).
 * The root leaves out group-versions known to have no document anywhere (served locally, or by peers, without
 * fragments), so every URL it lists resolves, as in {@code handler3}. {@link #local()} is the same without the peers'
 * fragments: what a peer gets (its request carries {@code X-Kubernetes-Peer-Proxied}), like discovery's
 * {@code profile=nopeer}. Map keys are sorted so that nodes with the same sources produce byte-identical documents
 * and hashes. Immutable and thread-safe.
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
  private final OpenApiDocuments local;
  private final java.util.Set<GroupVersion> undocumented;

  private OpenApiDocuments(Map<GroupVersion, ServedDocument> v3, Map<GroupVersion, String> fleet,
                           ServedDocument v3Root, ServedDocument v2Json, ServedDocument v2Protobuf,
                           OpenApiDocuments local, java.util.Set<GroupVersion> undocumented) {
    this.undocumented = undocumented;
    this.v3 = v3;
    this.fleet = fleet;
    this.v3Root = v3Root;
    this.v2Json = v2Json;
    this.v2Protobuf = v2Protobuf;
    this.local = local == null ? this : local;
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
    return build(sources, fleet, PeerFragments.none());
  }

  /**
   * Builds the documents from the local sources' fragments and what peers add. CPU-bound; call it off the event loop
   * ({@link #buildAsync}). A source whose fragment method throws is logged and skipped.
   *
   * @param sources the local API sources
   * @param fleet   every group-version the fleet serves (local and peers'); local ones may be omitted
   * @param peers   the peers' fragments for resources this node lacks
   * @return the documents
   */
  public static OpenApiDocuments build(Collection<? extends ApiSource> sources, Collection<GroupVersion> fleet,
                                       PeerFragments peers) {
    Map<GroupVersion, List<JsonObject>> v3 = new TreeMap<>();
    List<JsonObject> v2 = new ArrayList<>();
    java.util.Set<GroupVersion> undocumented = new java.util.TreeSet<>();
    for (ApiSource source : sources) {
      for (ServedGroupVersion sgv : source.groupVersions()) {
        GroupVersion gv = sgv.groupVersion();
        undocumented.add(gv);
        try {
          // a source without fragments (a code plugin) is described from what it declares; an aggregated API's
          // documents are its backend's, downloaded by its source (none while the backend has none)
          boolean declare = !source.servesWholeGroupVersion();
          JsonObject f3 = source.openApiV3(gv);
          if (f3 == null && declare) {
            f3 = DeclaredOpenApi.fragment(sgv, false);
          }
          if (f3 != null) {
            v3.computeIfAbsent(gv, k -> new ArrayList<>()).add(f3);
          }
          JsonObject f2 = source.openApiV2(gv);
          if (f2 == null && declare) {
            f2 = DeclaredOpenApi.fragment(sgv, true);
          }
          if (f2 != null && declare) {
            v2.add(f2);
          } else if (f2 != null) {
            // an aggregated API's backend spec goes first: a later definition of a name wins, so the node's own
            // (ObjectMeta and the like, which backends copy, sometimes older or trimmed) stay authoritative
            v2.add(0, f2);
          }
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "OpenAPI fragment of " + source.name() + " for " + gv + " failed", e);
        }
      }
    }
    undocumented.removeAll(v3.keySet());
    undocumented.addAll(peers.documentless());
    return fromFragments(v3, v2, fleet, peers, undocumented);
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
    return buildAsync(vertx, sources, fleet, PeerFragments.none());
  }

  /**
   * {@link #build(Collection, Collection, PeerFragments)} on a worker thread.
   *
   * @param vertx   the Vert.x instance
   * @param sources the local API sources (their fragment methods are called on a worker thread)
   * @param fleet   every group-version the fleet serves
   * @param peers   the peers' fragments for resources this node lacks
   * @return the documents
   */
  public static Future<OpenApiDocuments> buildAsync(Vertx vertx, Collection<? extends ApiSource> sources,
                                                    Collection<GroupVersion> fleet, PeerFragments peers) {
    List<ApiSource> copy = List.copyOf(sources);
    List<GroupVersion> fleetCopy = List.copyOf(fleet);
    return vertx.executeBlocking(() -> build(copy, fleetCopy, peers), false);
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
    return fromFragments(v3Fragments, v2Fragments, fleet, PeerFragments.none(), java.util.Set.of());
  }

  private static OpenApiDocuments fromFragments(Map<GroupVersion, List<JsonObject>> v3Fragments,
                                                List<JsonObject> v2Fragments, Collection<GroupVersion> fleet,
                                                PeerFragments peers, java.util.Set<GroupVersion> undocumented) {
    if (peers.isEmpty()) {
      return assemble(v3Fragments, v2Fragments, fleet, PeerFragments.none(), undocumented, null);
    }
    OpenApiDocuments local = assemble(v3Fragments, v2Fragments, fleet, PeerFragments.none(), undocumented, null);
    return assemble(v3Fragments, v2Fragments, fleet, peers, undocumented, local);
  }

  private static OpenApiDocuments assemble(Map<GroupVersion, List<JsonObject>> v3Fragments,
                                           List<JsonObject> v2Fragments, Collection<GroupVersion> fleet,
                                           PeerFragments peers, java.util.Set<GroupVersion> undocumented,
                                           OpenApiDocuments local) {
    Map<GroupVersion, ServedDocument> v3 = new TreeMap<>();
    java.util.Set<GroupVersion> documented = new java.util.TreeSet<>(v3Fragments.keySet());
    documented.addAll(peers.v3().keySet());
    for (GroupVersion gv : documented) {
      v3.put(gv, json(v3Document(v3Fragments.getOrDefault(gv, List.of()), peers.v3().getOrDefault(gv, List.of()))));
    }
    Map<GroupVersion, String> fleetHashes = hashes(fleet, v3);
    ServedDocument root = root(fleetHashes, v3, undocumented);
    JsonObject swagger = v2Document(v2Fragments, peers.v2());
    ServedDocument v2Json = json(swagger);
    ServedDocument v2Pb = ServedDocument.of(SwaggerProtobuf.encode(swagger), V2_PROTOBUF_CONTENT_TYPE);
    return new OpenApiDocuments(Collections.unmodifiableMap(v3), Collections.unmodifiableMap(fleetHashes), root,
        v2Json, v2Pb, local, java.util.Set.copyOf(undocumented));
  }

  private static Map<GroupVersion, String> hashes(Collection<GroupVersion> fleet, Map<GroupVersion, ServedDocument> v3) {
    Map<GroupVersion, String> fleetHashes = new TreeMap<>();
    for (GroupVersion gv : fleet) {
      // a peer's document hash is unknown here; the hash only makes the URL change when the fleet changes, the
      // content is revalidated with its ETag
      fleetHashes.put(gv, ServedDocument.sha512("remote " + gv.apiVersion()).substring(0, 32));
    }
    v3.forEach((gv, doc) -> fleetHashes.put(gv, doc.hash()));
    return fleetHashes;
  }

  private static ServedDocument root(Map<GroupVersion, String> fleetHashes, Map<GroupVersion, ServedDocument> v3,
                                     java.util.Set<GroupVersion> undocumented) {
    JsonObject rootPaths = new JsonObject();
    fleetHashes.forEach((gv, hash) -> {
      if (v3.containsKey(gv) || !undocumented.contains(gv)) { // every listed URL resolves (or answers 503)
        rootPaths.put(key(gv), new JsonObject().put("serverRelativeURL", "/openapi/v3/" + key(gv) + "?hash=" + hash));
      }
    });
    return json(new JsonObject().put("paths", rootPaths));
  }

  /**
   * The same documents with the peers' contribution to some group-versions taken out (their local document, or
   * none): applied at once when the peers that documented them left, so that a group-version only departed peers
   * served answers 503 until the next full build instead of a departed peer's document. Cheap (no rebuild).
   *
   * @param gvs group-versions whose peer fragments are no longer valid
   * @return the trimmed documents, or this object when nothing changes
   */
  public OpenApiDocuments withoutPeers(Collection<GroupVersion> gvs) {
    Map<GroupVersion, ServedDocument> next = new TreeMap<>(v3);
    boolean changed = false;
    for (GroupVersion gv : gvs) {
      ServedDocument own = local.v3.get(gv);
      ServedDocument cur = next.get(gv);
      if (cur != null && cur != own) {
        changed = true;
        if (own == null) {
          next.remove(gv);
        } else {
          next.put(gv, own);
        }
      }
    }
    if (!changed) {
      return this;
    }
    Map<GroupVersion, String> fleetHashes = hashes(fleet.keySet(), next);
    return new OpenApiDocuments(Collections.unmodifiableMap(next), Collections.unmodifiableMap(fleetHashes),
        root(fleetHashes, next, undocumented), v2Json, v2Protobuf, local, undocumented);
  }

  /**
   * @return the documents without the peers' fragments (this object when there are none): what is served to a
   *     request a peer proxied, so that peers merge each other's LOCAL documents only
   */
  public OpenApiDocuments local() {
    return local;
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

  /**
   * @param gv a group-version
   * @return true when it is known to have no v3 document: served here without one (an aggregated API whose backend
   *     has none, or whose documents are not downloaded yet) or only by peers that answered none; such a
   *     group-version is left out of the root and answered 404
   */
  public boolean undocumented(GroupVersion gv) {
    return !v3.containsKey(gv) && undocumented.contains(gv);
  }

  /** @return the group-versions that have a v3 document (local, or documented by peers) */
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

  private static JsonObject v3Document(List<JsonObject> fragments, List<JsonObject> peerFragments) {
    Map<String, Object> paths = new TreeMap<>();
    Map<String, Object> schemas = new TreeMap<>();
    for (JsonObject f : fragments) {
      mergeInto(paths, f.getJsonObject("paths"), true);
      JsonObject comp = f.getJsonObject("components");
      mergeInto(schemas, comp == null ? null : comp.getJsonObject("schemas"), false);
    }
    for (JsonObject f : peerFragments) {
      addAbsent(paths, f.getJsonObject("paths"));
      JsonObject comp = f.getJsonObject("components");
      addAbsent(schemas, comp == null ? null : comp.getJsonObject("schemas"));
    }
    return new JsonObject().put("openapi", "3.0.0")
        .put("info", new JsonObject().put("title", "Kubernetes").put("version", "unversioned"))
        .put("paths", new JsonObject(new LinkedHashMap<>(paths)))
        .put("components", new JsonObject().put("schemas", new JsonObject(new LinkedHashMap<>(schemas))));
  }

  private static JsonObject v2Document(List<JsonObject> fragments, List<JsonObject> peerFragments) {
    Map<String, Object> paths = new TreeMap<>();
    Map<String, Object> defs = new TreeMap<>();
    for (JsonObject f : fragments) {
      mergeInto(paths, f.getJsonObject("paths"), true);
      mergeInto(defs, f.getJsonObject("definitions"), false);
    }
    for (JsonObject f : peerFragments) {
      addAbsent(paths, f.getJsonObject("paths"));
      addAbsent(defs, f.getJsonObject("definitions"));
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

  /** Adds the entries of {@code from} whose names {@code into} lacks (local definitions stay authoritative). */
  private static void addAbsent(Map<String, Object> into, JsonObject from) {
    if (from != null) {
      from.forEach(e -> into.putIfAbsent(e.getKey(), e.getValue()));
    }
  }

  private static ServedDocument json(JsonObject doc) {
    return ServedDocument.of(doc.encode().getBytes(StandardCharsets.UTF_8), JSON);
  }
}
