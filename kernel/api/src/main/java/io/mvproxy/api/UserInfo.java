package io.mvproxy.api;

import java.util.List;
import java.util.Map;

/**
 * An authenticated identity, as Kubernetes' {@code user.Info}: forwarded to peers and backends as front-proxy
 * headers ({@code X-Remote-User}, {@code X-Remote-Uid}, {@code X-Remote-Group}, {@code X-Remote-Extra-*}).
 *
 * @param name   user name (client certificate CN, token file user, or front-proxy header)
 * @param uid    user UID, {@code ""} when unknown
 * @param groups groups (certificate O values, token file groups)
 * @param extra  extra attributes, key to values
 */
public record UserInfo(String name, String uid, List<String> groups, Map<String, List<String>> extra) {
  /** Copies the collections so the record is immutable. */
  public UserInfo {
    uid = uid == null ? "" : uid;
    groups = List.copyOf(groups);
    extra = Map.copyOf(extra);
  }

}
