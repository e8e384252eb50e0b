package io.mvproxy.registry.impl.rest;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The strategic-merge-patch metadata of one field and of the fields of its type (or, for a list, of its element
 * type): what the Go struct tags {@code patchStrategy} and {@code patchMergeKey} say in {@code k8s.io/api}, as
 * apimachinery {@code pkg/util/strategicpatch/meta.go} {@code PatchMetaFromStruct} reads them. A field with no entry
 * has no tags: its lists are replaced (atomic), its maps merged key by key.
 */
public final class PatchMeta {
  /** No tags and no tagged fields below. */
  public static final PatchMeta NONE = new PatchMeta("", "", Map.of());
  /** The tags of {@code metav1.ObjectMeta} ({@code ownerReferences}: merge by {@code uid}; {@code finalizers}: merge). */
  public static final Map<String, String> OBJECT_META_TAGS = Map.of(
      "metadata.ownerReferences", "merge:uid",
      "metadata.finalizers", "merge");
  private final List<String> strategies;
  private final String mergeKey;
  private final Map<String, PatchMeta> fields;

  /**
   * @param patchStrategy the {@code patchStrategy} tag ({@code ""}, {@code merge}, {@code replace},
   *                      {@code retainKeys} or {@code merge,retainKeys})
   * @param mergeKey      the {@code patchMergeKey} tag ({@code ""} for none)
   * @param fields        the metadata of the fields of the type (not copied, so a type may contain itself)
   */
  public PatchMeta(String patchStrategy, String mergeKey, Map<String, PatchMeta> fields) {
    this.strategies = patchStrategy.isEmpty() ? List.of() : Arrays.asList(patchStrategy.split(","));
    this.mergeKey = mergeKey;
    this.fields = fields;
  }

  /**
   * Builds a type's metadata from dotted field paths to tags.
   *
   * @param tags field path (e.g. {@code metadata.ownerReferences}) to {@code <patchStrategy>[:<patchMergeKey>]}
   *             (e.g. {@code merge:uid}); the fields on the way have no tags
   * @return the metadata of the type holding those fields
   */
  public static PatchMeta of(Map<String, String> tags) {
    Map<String, PatchMeta> root = new HashMap<>();
    tags.forEach((path, tag) -> put(root, path.split("\\."), 0, tag));
    return new PatchMeta("", "", root);
  }

  private static void put(Map<String, PatchMeta> fields, String[] path, int i, String tag) {
    PatchMeta cur = fields.get(path[i]);
    if (i == path.length - 1) {
      int colon = tag.indexOf(':');
      fields.put(path[i], new PatchMeta(colon < 0 ? tag : tag.substring(0, colon), colon < 0 ? ""
          : tag.substring(colon + 1), cur == null ? new HashMap<>() : cur.fields));
      return;
    }
    if (cur == null) {
      cur = new PatchMeta("", "", new HashMap<>());
      fields.put(path[i], cur);
    }
    put(cur.fields, path, i + 1, tag);
  }

  /**
   * @param name a JSON field name
   * @return its metadata ({@link #NONE} when it has none)
   */
  public PatchMeta field(String name) {
    return fields.getOrDefault(name, NONE);
  }

  /** @return the {@code patchStrategy} values, e.g. {@code [merge, retainKeys]} */
  public List<String> strategies() {
    return strategies;
  }

  /** @return the {@code patchMergeKey}, {@code ""} for none */
  public String mergeKey() {
    return mergeKey;
  }
}
