package io.mvproxy.node.fleet;

import io.vertx.core.eventbus.Message;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Make before break, the waiting side (README "Plugins"): which of this node's local discovery documents each live
 * peer has confirmed applying ({@code Addresses.discoveryApplied}), and the plugin drains waiting until every live
 * peer has applied the document that no longer lists what they withdrew ({@code Addresses.LOCAL_PEERS_CAUGHT_UP}).
 * Documents are numbered by generation (each change of the local ETag is one), so a peer's confirmation of an older
 * document never releases a newer withdrawal. Owned by the {@link DiscoveryVerticle} (its context, not thread-safe).
 */
final class PeerCatchUp {
  /** Waiting requests kept at most; the oldest beyond it is failed (its plugin drains after its own bound anyway). */
  static final int MAX_WAITING = 64;
  /** Generation of each recent local ETag, the last 256. */
  private final Map<String, Long> etagGeneration = new LinkedHashMap<>(16, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
      return size() > 256;
    }
  };
  private long generation;
  /** Per live peer: the generation of this node's local discovery it last confirmed applying. */
  private final Map<String, Long> appliedByPeer = new HashMap<>();
  /** Requests waiting until every live peer applied a generation: the generation and the message to answer. */
  private final List<Map.Entry<Long, Message<Object>>> waiting = new ArrayList<>();

  /** @param etag this node's new local (nopeer) discovery ETag: the next generation */
  void localEtag(String etag) {
    etagGeneration.remove(etag);
    etagGeneration.put(etag, ++generation);
  }

  /**
   * A peer confirmed applying one of this node's documents.
   *
   * @param peer the peer's server ID
   * @param etag the ETag of the document it applied (unknown or too old ones are ignored)
   * @param live the live peers' server IDs
   */
  void applied(String peer, String etag, Collection<String> live) {
    Long gen = etagGeneration.get(etag);
    if (gen != null) {
      appliedByPeer.merge(peer, gen, Math::max);
      answer(live);
    }
  }

  /**
   * A drain waits for the current generation.
   *
   * @param request the request to answer (no body) once every live peer applied it
   * @param live    the live peers' server IDs
   */
  void await(Message<Object> request, Collection<String> live) {
    waiting.add(Map.entry(generation, request));
    answer(live);
  }

  /**
   * The live peers changed: departed ones are no longer waited for.
   *
   * @param live the live peers' server IDs
   */
  void livePeers(Collection<String> live) {
    appliedByPeer.keySet().retainAll(live);
    answer(live);
  }

  /** Answers the waiting requests whose generation every live peer has confirmed. */
  private void answer(Collection<String> live) {
    waiting.removeIf(e -> {
      for (String peer : live) {
        if (appliedByPeer.getOrDefault(peer, -1L) < e.getKey()) {
          return false;
        }
      }
      e.getValue().reply(null);
      return true;
    });
    while (waiting.size() > MAX_WAITING) {
      waiting.remove(0).getValue().fail(503, "dropped: too many waiting");
    }
  }
}
