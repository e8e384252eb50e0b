package io.mvproxy.storage;

import io.mvproxy.api.storage.StorageException;

/** Key helpers: range ends (etcd {@code clientv3.GetPrefixRangeEnd}) and path-safety checks (storage.md section 2). */
public final class Keys {
  private Keys() {
  }

  /**
   * @param prefix a key prefix
   * @return the smallest key greater than every key starting with {@code prefix} (last char incremented)
   */
  public static String prefixEnd(String prefix) {
    char[] c = prefix.toCharArray();
    for (int i = c.length - 1; i >= 0; i--) {
      if (c[i] < Character.MAX_VALUE) {
        c[i]++;
        return new String(c, 0, i + 1);
      }
    }
    return "\u0000";
  }

  /**
   * Checks a relative key or key prefix: no empty (but a trailing one for prefixes), {@code .} or {@code ..}
   * segment, no leading {@code /}.
   *
   * @param key    the relative key
   * @param prefix true when {@code key} is a prefix (may be empty or end with {@code /})
   * @return {@code key}
   * @throws StorageException 400 when unsafe
   */
  public static String checkRelative(String key, boolean prefix) {
    if (key == null) {
      throw StorageException.badRequest("invalid key: null");
    }
    if (prefix && key.isEmpty()) {
      return key;
    }
    String body = prefix && key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
    for (String seg : body.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw StorageException.badRequest("invalid key: \"" + key + "\"");
      }
    }
    return key;
  }
}
