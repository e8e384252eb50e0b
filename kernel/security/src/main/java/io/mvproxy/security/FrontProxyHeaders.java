package io.mvproxy.security;

import io.mvproxy.api.UserInfo;
import io.vertx.core.MultiMap;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Front-proxy identity headers ({@code X-Remote-User}, {@code X-Remote-Uid}, {@code X-Remote-Group},
 * {@code X-Remote-Extra-<percent-encoded key>}), written as client-go's {@code SetAuthProxyHeaders}
 * ({@code staging/src/k8s.io/client-go/transport/round_trippers.go}) and read as the request-header authenticator
 * ({@code staging/src/k8s.io/apiserver/pkg/authentication/request/headerrequest/requestheader.go}). Stateless.
 */
public final class FrontProxyHeaders {
  /** User name header. */
  public static final String USER = "X-Remote-User";
  /** User UID header (written only when the UID is not empty). */
  public static final String UID = "X-Remote-Uid";
  /** Group header, one per group. */
  public static final String GROUP = "X-Remote-Group";
  /** Prefix of the extra headers; the rest of the name is the percent-encoded extra key. */
  public static final String EXTRA_PREFIX = "X-Remote-Extra-";
  /** The KEP-4020 loop-guard header, set to {@code true} by the peer proxy on the proxied hop. */
  public static final String PEER_PROXIED = "X-Kubernetes-Peer-Proxied";

  private static final String REMOTE_PREFIX = "x-remote-";

  private FrontProxyHeaders() {
  }

  /**
   * Replaces any identity headers on {@code headers} with those of {@code user}: removes every {@code X-Remote-*}
   * header first, then sets {@code X-Remote-User}, {@code X-Remote-Uid} (if not empty), one {@code X-Remote-Group}
   * per group and one {@code X-Remote-Extra-<key>} per extra value. Does not touch {@value #PEER_PROXIED}.
   *
   * @param user    the identity to forward
   * @param headers the outgoing request headers (mutated)
   */
  public static void write(UserInfo user, MultiMap headers) {
    removeIdentity(headers);
    headers.set(USER, user.name());
    if (!user.uid().isEmpty()) {
      headers.set(UID, user.uid());
    }
    for (String g : user.groups()) {
      headers.add(GROUP, g);
    }
    for (Map.Entry<String, List<String>> e : user.extra().entrySet()) {
      String name = EXTRA_PREFIX + escapeExtraKey(e.getKey());
      for (String v : e.getValue()) {
        headers.add(name, v);
      }
    }
  }

  /**
   * Reads the identity from front-proxy headers. Extra keys are lower-cased, then percent-decoded, as upstream.
   *
   * @param headers the request headers
   * @return the identity, or {@code null} when {@code X-Remote-User} is absent or empty
   */
  public static UserInfo read(MultiMap headers) {
    String user = headers.get(USER);
    if (user == null || user.isEmpty()) {
      return null;
    }
    String uid = headers.get(UID);
    List<String> groups = new ArrayList<>(headers.getAll(GROUP));
    Map<String, List<String>> extra = new LinkedHashMap<>();
    for (String name : headers.names()) {
      if (name.length() > EXTRA_PREFIX.length() && name.regionMatches(true, 0, EXTRA_PREFIX, 0,
          EXTRA_PREFIX.length())) {
        String key = unescapeExtraKey(name.substring(EXTRA_PREFIX.length()).toLowerCase(Locale.ROOT));
        extra.computeIfAbsent(key, k -> new ArrayList<>()).addAll(headers.getAll(name));
      }
    }
    return new UserInfo(user, uid == null ? "" : uid, groups, extra);
  }

  /**
   * Removes every {@code X-Remote-*} header (any case).
   *
   * @param headers the headers (mutated)
   */
  public static void removeIdentity(MultiMap headers) {
    List<String> drop = new ArrayList<>();
    for (String name : headers.names()) {
      if (name.regionMatches(true, 0, REMOTE_PREFIX, 0, REMOTE_PREFIX.length())) {
        drop.add(name);
      }
    }
    drop.forEach(headers::remove);
  }

  /**
   * Percent-encodes an extra key for use in a header name: every UTF-8 byte that is not an RFC 7230 token character,
   * and {@code %} itself, becomes {@code %XX} (client-go {@code headerKeyEscape}).
   *
   * @param key the extra key, e.g. {@code authentication.kubernetes.io/pod-name}
   * @return the header-safe form, e.g. {@code authentication.kubernetes.io%2Fpod-name}
   */
  public static String escapeExtraKey(String key) {
    StringBuilder b = new StringBuilder();
    for (byte x : key.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if (isTokenChar(c) && c != '%') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return b.toString();
  }

  /**
   * Decodes {@code %XX} sequences (Go's {@code url.PathUnescape}; {@code +} stays {@code +}). An invalid escape leaves
   * the key as given, as upstream does.
   *
   * @param escaped the header-name suffix
   * @return the extra key
   */
  public static String unescapeExtraKey(String escaped) {
    if (escaped.indexOf('%') < 0) {
      return escaped;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] in = escaped.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < in.length; i++) {
      if (in[i] == '%') {
        int hi = i + 2 < in.length ? Character.digit(in[i + 1], 16) : -1;
        int lo = i + 2 < in.length ? Character.digit(in[i + 2], 16) : -1;
        if (hi < 0 || lo < 0) {
          return escaped;
        }
        out.write(hi << 4 | lo);
        i += 2;
      } else {
        out.write(in[i]);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static boolean isTokenChar(int c) {
    return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
        || c < 128 && "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }
}
