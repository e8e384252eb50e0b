package io.mvproxy.node.proxy;

import io.vertx.core.Context;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The long-running proxied responses (watches, streaming subresources) in flight, by the server ID of the peer
 * serving each. When the fleet view no longer lists a peer as live (departed: killed, frozen or partitioned away
 * as Hazelcast sees it; or left), {@link #retainLive} ends its streams, each on its own connection's context: a
 * frozen peer's kernel keeps ACKing, so neither TCP keep-alive nor the (absent) idle timeout would ever end them.
 * Thread-safe: streams are added from event loops, {@link #retainLive} is called from the fleet-view writer.
 */
public final class PeerStreams {
  private static final Logger LOG = Logger.getLogger(PeerStreams.class.getName());

  /** One stream: the context its response belongs to and what ends it there. */
  private record Stream(Context context, Runnable end) {
  }

  private final ConcurrentHashMap<String, Set<Stream>> byPeer = new ConcurrentHashMap<>();

  /**
   * Records a stream served by a peer.
   *
   * @param peer    the serving peer's server ID
   * @param context the context of the client connection's response (where {@code end} runs)
   * @param end     ends the client response cleanly and resets the peer-side request (idempotent)
   * @return removes the stream again (call when the response ends or closes); idempotent
   */
  public Runnable add(String peer, Context context, Runnable end) {
    Stream s = new Stream(context, end);
    byPeer.compute(peer, (k, set) -> {
      Set<Stream> out = set == null ? ConcurrentHashMap.newKeySet() : set;
      out.add(s);
      return out;
    });
    return () -> byPeer.computeIfPresent(peer, (k, set) -> {
      set.remove(s);
      return set.isEmpty() ? null : set;
    });
  }

  /**
   * Ends the streams of every peer not in {@code live}, each on its context, and forgets them.
   *
   * @param live server IDs of the live peers (the fleet view's members)
   * @return how many streams were ended
   */
  public int retainLive(Set<String> live) {
    int ended = 0;
    for (String peer : Set.copyOf(byPeer.keySet())) {
      if (live.contains(peer)) {
        continue;
      }
      Set<Stream> gone = byPeer.remove(peer);
      if (gone == null) {
        continue;
      }
      for (Stream s : gone) {
        ended++;
        s.context().runOnContext(v -> {
          try {
            s.end().run();
          } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "ending a stream of departed peer " + peer + " failed", e);
          }
        });
      }
      LOG.info("peer " + peer + " is no longer live: ending its " + gone.size() + " proxied stream(s)");
    }
    return ended;
  }

  /**
   * @param peer a peer's server ID
   * @return streams in flight to it
   */
  public int count(String peer) {
    Set<Stream> s = byPeer.get(peer);
    return s == null ? 0 : s.size();
  }
}
