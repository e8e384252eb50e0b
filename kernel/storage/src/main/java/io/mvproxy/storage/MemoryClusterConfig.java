package io.mvproxy.storage;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.RingbufferConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import com.hazelcast.spi.merge.DiscardMergePolicy;

/**
 * The Hazelcast configuration of the {@code memory} backend's structures, so a network split can neither resurrect
 * a delete nor lose an acknowledged write (breaker F9).
 *
 * <ul>
 *   <li>Split-brain protection {@value #PROTECTION}: with {@code n >= 3} configured {@code --cluster-members}, every
 *   read and write of the objects map, the revision map and the event rings needs a cluster of at least
 *   {@code n/2+1} members ({@link #quorum}) whose heartbeat arrived within the heartbeat limit (Hazelcast's
 *   recently-active function); a minority answers 503 (the operation is refused, never queued).</li>
 *   <li>Merge: {@link DiscardMergePolicy} on all of them: when the split heals, the smaller side's entries are
 *   dropped and the bigger side's kept, absent keys included, so a key deleted on the majority stays deleted and the
 *   revision counter keeps the majority's (higher) value. The minority could not write, so nothing acknowledged is
 *   dropped.</li>
 *   <li>Backups of the objects map: {@code n - quorum} (at least 1), so any quorum of members holds a copy of every
 *   partition and the majority side never lacks a key that the merge would then discard.</li>
 * </ul>
 * With fewer than three members there is no quorum (both sides of a 1-1 split accept writes): the side that merges
 * away loses what it wrote during the split; deletes are still never resurrected.
 */
public final class MemoryClusterConfig {
  /** Name of the split-brain protection of the storage structures. */
  public static final String PROTECTION = "mvproxy.storage.quorum";
  /** Backups of the revision map and the event rings: a copy on every member of a fleet of up to 7. */
  static final int META_BACKUPS = 6;
  /** Hazelcast's maximum backup count. */
  private static final int MAX_BACKUPS = 6;
  /** Merge batch size (Hazelcast's default). */
  private static final int MERGE_BATCH = 100;

  private MemoryClusterConfig() {
  }

  /**
   * @param members the number of configured {@code --cluster-members}
   * @return the minimum cluster size the storage needs: a strict majority when {@code members >= 3}, else 0 (none)
   */
  public static int quorum(int members) {
    return members >= 3 ? members / 2 + 1 : 0;
  }

  /**
   * Adds the storage's split-brain protection, map and ring configurations to a member's config before it starts
   * (split-brain protection cannot be added to a running member).
   *
   * @param hz      the member's configuration
   * @param members the number of configured {@code --cluster-members} (0 or 1: a lone member)
   * @param storage the storage settings (the watch cache size sets the ring capacity)
   */
  public static void apply(Config hz, int members, StorageConfig storage) {
    int quorum = quorum(members);
    String protection = null;
    if (quorum > 0) {
      hz.addSplitBrainProtectionConfig(SplitBrainProtectionConfig.newRecentlyActiveSplitBrainProtectionConfigBuilder(
          PROTECTION, quorum, toleranceMs(hz)).build().setEnabled(true).setProtectOn(SplitBrainProtectionOn.READ_WRITE));
      protection = PROTECTION;
    }
    int dataBackups = Math.min(MAX_BACKUPS, Math.max(1, members - quorum));
    hz.addMapConfig(dataMap(dataBackups, protection));
    hz.addMapConfig(metaMap(protection));
    hz.addRingBufferConfig(rings(ringCapacity(storage), protection));
  }

  /**
   * @return how recent (ms) a member's last heartbeat must be for it to count: the member's
   *     {@code hazelcast.max.no.heartbeat.seconds} (Hazelcast's default 60 s when unset), so a member counts exactly
   *     as long as Hazelcast would keep it, and one resumed after a freeze longer than that sees no quorum at once
   */
  static int toleranceMs(Config hz) {
    String s = hz.getProperty("hazelcast.max.no.heartbeat.seconds");
    return (s == null ? 60 : Integer.parseInt(s.trim())) * 1000;
  }

  /** @return events kept per resource ring: {@link MemoryBackend#HISTORY_FACTOR} x the watch cache size, at least 16 */
  static int ringCapacity(StorageConfig storage) {
    return Math.max(16, storage.watchCacheSize() * MemoryBackend.HISTORY_FACTOR);
  }

  static MapConfig dataMap(int backups, String protection) {
    return new MapConfig(MemoryBackend.DATA).setBackupCount(backups).setMergePolicyConfig(discard())
        .setSplitBrainProtectionName(protection);
  }

  static MapConfig metaMap(String protection) {
    return new MapConfig(MemoryBackend.META).setBackupCount(META_BACKUPS).setMergePolicyConfig(discard())
        .setSplitBrainProtectionName(protection);
  }

  static RingbufferConfig rings(int capacity, String protection) {
    return new RingbufferConfig(MemoryBackend.EVENTS + "*").setCapacity(capacity).setBackupCount(META_BACKUPS)
        .setMergePolicyConfig(discard()).setSplitBrainProtectionName(protection);
  }

  private static MergePolicyConfig discard() {
    return new MergePolicyConfig(DiscardMergePolicy.class.getName(), MERGE_BATCH);
  }
}
