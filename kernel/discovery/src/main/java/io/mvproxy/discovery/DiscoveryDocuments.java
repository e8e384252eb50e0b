package io.mvproxy.discovery;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An immutable snapshot of every discovery document a node serves, computed once per change (local sources,
 * membership or a peer's document), never per request (discovery.md sections 2, 3, 5, 6).
 *
 * <p>Holds, for both {@link View}s and both aggregated formats, the pre-rendered bytes and ETag of {@code /api}
 * and {@code /apis}; and the legacy documents: {@code /api} ({@code APIVersions}) and {@code /apis}
 * ({@code APIGroupList}) from the peer-aggregated view, {@code /apis/<g>} for groups this node serves and
 * {@code /api/v1}, {@code /apis/<g>/<v>} for group-versions this node serves ({@code Current}). Legacy
 * group-versions list the peer-aggregated resources of that version, with this node's
 * {@code storageVersionHash} where it knows one.
 *
 * <p>Buffers handed out are shared by every request: callers must not modify them.
 */
public final class DiscoveryDocuments {
  /** Which servers a document describes. */
  public enum View {
    /** Every server of the fleet merged ({@link PeerMerge}): what clients get. */
    PEER_AGGREGATED,
    /** This node only ({@code profile=nopeer}): what peers fetch from each other. */
    LOCAL
  }

  /**
   * A pre-rendered aggregated document.
   *
   * @param body        the exact JSON bytes to send
   * @param etag        its quoted ETag ({@link Etags})
   * @param contentType the exact {@code Content-Type} naming the format
   */
  public record Rendered(Buffer body, String etag, String contentType) {
  }

  private final String serverId;
  private final String serverAddress;
  private final List<ServedGroupVersion> localInput;
  private final SortedMap<String, List<DiscoveryGroup>> peerInput;
  private final List<DiscoveryGroup> localGroups;
  private final List<DiscoveryGroup> mergedGroups;
  private final Map<View, Map<DiscoveryFormat, Rendered[]>> aggregated = new EnumMap<>(View.class);
  private final Buffer legacyApi;
  private final Buffer legacyApis;
  private final Map<String, Buffer> legacyGroups = new HashMap<>();
  private final Map<GroupVersion, Buffer> legacyVersions = new HashMap<>();
  private final Map<String, String> fleetPreferred = new HashMap<>();
  private final Map<GroupVersion, Boolean> fleetKnown = new HashMap<>();
  private final java.util.Set<GroupVersion> fleetCurrent = new java.util.HashSet<>();
  private final java.util.Set<GroupVersion> localStale = new java.util.HashSet<>();
  private final String localEtag;

  /**
   * Computes every document.
   *
   * @param local         what this node's sources serve
   * @param peerDocs      each server's local (nopeer) groups by server ID, core and non-core together; this
   *                      node's entry, if any, is replaced by the document computed from {@code local}
   * @param localServerId this node's server ID
   * @param serverAddress {@code host:port} clients reach this node at (legacy {@code serverAddressByClientCIDRs})
   */
  public DiscoveryDocuments(List<ServedGroupVersion> local, SortedMap<String, List<DiscoveryGroup>> peerDocs,
                            String localServerId, String serverAddress) {
    this.serverId = Objects.requireNonNull(localServerId, "localServerId");
    this.serverAddress = Objects.requireNonNull(serverAddress, "serverAddress");
    this.localInput = List.copyOf(local);
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>();
    peerDocs.forEach((id, groups) -> peers.put(id, List.copyOf(groups)));
    peers.remove(localServerId);
    this.peerInput = peers;
    LocalDiscovery ld = LocalDiscovery.of(local);
    this.localGroups = ld.groups();
    SortedMap<String, List<DiscoveryGroup>> all = new TreeMap<>(peers);
    all.put(localServerId, localGroups);
    this.mergedGroups = List.copyOf(PeerMerge.merge(all));

    render(View.LOCAL, localGroups);
    render(View.PEER_AGGREGATED, mergedGroups);
    Rendered lApi = aggregated(View.LOCAL, DiscoveryFormat.V2, true);
    Rendered lApis = aggregated(View.LOCAL, DiscoveryFormat.V2, false);
    this.localEtag = Etags.of(lApi.body().copy().appendBuffer(lApis.body()));

    this.legacyApi = LegacyDiscovery.apiVersions(LocalDiscovery.coreOf(mergedGroups), serverAddress)
        .toBuffer();
    this.legacyApis = LegacyDiscovery.apiGroupList(LocalDiscovery.nonCoreOf(mergedGroups)).toBuffer();

    Map<GroupVersion, DiscoveryVersion> localCurrent = new HashMap<>();
    for (DiscoveryGroup g : localGroups) {
      for (DiscoveryVersion v : g.versions()) {
        if (v.freshness() == io.mvproxy.api.discovery.Freshness.Stale) {
          localStale.add(new GroupVersion(g.name(), v.version()));
        } else {
          localCurrent.put(new GroupVersion(g.name(), v.version()), v);
        }
      }
    }
    for (DiscoveryGroup g : mergedGroups) {
      if (g.versions().isEmpty()) {
        continue;
      }
      fleetPreferred.put(g.name(), LegacyDiscovery.preferred(g).version());
      boolean groupLocal = false;
      for (DiscoveryVersion v : g.versions()) {
        GroupVersion gv = new GroupVersion(g.name(), v.version());
        fleetKnown.put(gv, Boolean.TRUE);
        if (v.freshness() != io.mvproxy.api.discovery.Freshness.Stale) {
          fleetCurrent.add(gv);
        }
        DiscoveryVersion mine = localCurrent.get(gv);
        if (mine != null) {
          groupLocal = true;
          legacyVersions.put(gv, LegacyDiscovery.apiResourceList(gv, withLocalHashes(v, mine)).toBuffer());
        }
      }
      if (groupLocal && !g.name().isEmpty()) {
        legacyGroups.put(g.name(), LegacyDiscovery.apiGroup(g).toBuffer());
      }
    }
  }

  private void render(View view, List<DiscoveryGroup> groups) {
    Map<DiscoveryFormat, Rendered[]> byFormat = new EnumMap<>(DiscoveryFormat.class);
    for (DiscoveryFormat f : List.of(DiscoveryFormat.V2, DiscoveryFormat.V2BETA1)) {
      Rendered core = rendered(LocalDiscovery.coreOf(groups), f);
      Rendered nonCore = rendered(LocalDiscovery.nonCoreOf(groups), f);
      byFormat.put(f, new Rendered[] {core, nonCore});
    }
    aggregated.put(view, byFormat);
  }

  private static Rendered rendered(List<DiscoveryGroup> groups, DiscoveryFormat f) {
    Buffer body = DiscoveryCodec.encode(groups, f);
    return new Rendered(body, Etags.of(body), f.contentType());
  }

  private static DiscoveryVersion withLocalHashes(DiscoveryVersion merged, DiscoveryVersion mine) {
    Map<String, String> hashes = new HashMap<>();
    mine.resources().forEach(r -> {
      if (r.storageVersionHash() != null) {
        hashes.put(r.resource(), r.storageVersionHash());
      }
    });
    List<DiscoveryResource> out = new ArrayList<>();
    for (DiscoveryResource r : merged.resources()) {
      String h = hashes.getOrDefault(r.resource(), r.storageVersionHash());
      out.add(Objects.equals(h, r.storageVersionHash()) ? r : new DiscoveryResource(r.resource(),
          r.singularResource(), r.responseKind(), r.namespaced(), r.verbs(), r.shortNames(), r.categories(),
          r.subresources(), h));
    }
    return new DiscoveryVersion(merged.version(), out, merged.freshness());
  }

  /**
   * Recomputes only when something changed (discovery.md section 5: "merge only when something changed").
   *
   * @param local         what this node's sources serve now
   * @param peerDocs      each server's local groups now (this node's entry, if any, is ignored)
   * @param localServerId this node's server ID
   * @param serverAddress {@code host:port} for legacy {@code serverAddressByClientCIDRs}
   * @return {@code this} when the inputs equal the ones this snapshot was built from, else a new snapshot
   */
  public DiscoveryDocuments updated(List<ServedGroupVersion> local, SortedMap<String, List<DiscoveryGroup>> peerDocs,
                                    String localServerId, String serverAddress) {
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>(peerDocs);
    peers.remove(localServerId);
    if (serverId.equals(localServerId) && this.serverAddress.equals(serverAddress) && localInput.equals(local)
        && peerInput.equals(peers)) {
      return this;
    }
    return new DiscoveryDocuments(local, peerDocs, localServerId, serverAddress);
  }

  /**
   * @param localServerId this node's server ID
   * @param serverAddress {@code host:port} for legacy {@code serverAddressByClientCIDRs}
   * @return an empty snapshot (no sources, no peers) for a node that has not computed one yet
   */
  public static DiscoveryDocuments empty(String localServerId, String serverAddress) {
    return new DiscoveryDocuments(List.of(), new TreeMap<>(), localServerId, serverAddress);
  }

  /**
   * @param view   peer-aggregated or local
   * @param format {@link DiscoveryFormat#V2} or {@link DiscoveryFormat#V2BETA1}
   * @param core   true for {@code /api} (core group), false for {@code /apis}
   * @return the pre-rendered document
   * @throws IllegalArgumentException for {@link DiscoveryFormat#LEGACY}
   */
  public Rendered aggregated(View view, DiscoveryFormat format, boolean core) {
    Rendered[] r = aggregated.get(view).get(format);
    if (r == null) {
      throw new IllegalArgumentException("not an aggregated format: " + format);
    }
    return r[core ? 0 : 1];
  }

  /** @return the legacy {@code /api} document ({@code APIVersions}, fleet view) */
  public Buffer legacyApi() {
    return legacyApi;
  }

  /** @return the legacy {@code /apis} document ({@code APIGroupList}, fleet view) */
  public Buffer legacyApis() {
    return legacyApis;
  }

  /**
   * @param group a non-core group
   * @return its {@code APIGroup} (fleet view) when this node serves a Current version of it, else empty
   */
  public Optional<Buffer> legacyGroup(String group) {
    return Optional.ofNullable(legacyGroups.get(group));
  }

  /**
   * @param gv a group-version ({@code ""} group for {@code /api/<v>})
   * @return its {@code APIResourceList} when this node serves it Current, else empty
   */
  public Optional<Buffer> legacyResourceList(GroupVersion gv) {
    return Optional.ofNullable(legacyVersions.get(gv));
  }

  /**
   * @param gv a group-version
   * @return true when some server of the fleet serves it, or served it before departing (Stale): a peer may
   *     answer for it, or the routing decision answers 503 while only departed servers had it
   */
  public boolean servedByFleet(GroupVersion gv) {
    return fleetKnown.containsKey(gv);
  }

  /**
   * @param gv a group-version
   * @return true when this node serves it but cannot answer for it now (an APIService whose backend is
   *     unavailable: Stale in its own discovery) and no server of the fleet serves it Current: legacy discovery
   *     answers 503, as kube-aggregator does for an unavailable APIService
   */
  public boolean unavailableHere(GroupVersion gv) {
    return localStale.contains(gv) && !fleetCurrent.contains(gv);
  }

  /**
   * @param group a group name
   * @return the fleet's preferred version of it (the first Current one, else the first Stale one), or empty when
   *     no server serves or served it
   */
  public Optional<String> fleetPreferredVersion(String group) {
    return Optional.ofNullable(fleetPreferred.get(group));
  }

  /** @return this node's groups, core included, in emitted order (its nopeer document) */
  public List<DiscoveryGroup> localGroups() {
    return localGroups;
  }

  /** @return the fleet's merged groups, core included, in emitted order */
  public List<DiscoveryGroup> mergedGroups() {
    return mergedGroups;
  }

  /** @return this node's server ID */
  public String serverId() {
    return serverId;
  }

  /**
   * @return a quoted ETag of this node's local view (v2 {@code /api} bytes followed by v2 {@code /apis} bytes):
   *     changes exactly when the document peers fetch from this node changes (for membership records)
   */
  public String localEtag() {
    return localEtag;
  }
}
