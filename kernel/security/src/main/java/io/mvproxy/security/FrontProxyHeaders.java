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
import java.util.function.BiConsumer;

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
    add(user, headers);
  }

  /**
   * Adds the identity headers of {@code user} to headers that hold no {@code X-Remote-*} header (for a hop that
   * copied the caller's headers without them, {@link #isIdentityHeader}).
   */
  static void add(UserInfo user, MultiMap headers) {
    headers.add(USER, user.name());
    if (!user.uid().isEmpty()) {
      headers.add(UID, user.uid());
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
   * Reads the identity from front-proxy headers, in one pass over the entries. Extra keys are lower-cased, then
   * percent-decoded, as upstream.
   *
   * @param headers the request headers
   * @return the identity, or {@code null} when {@code X-Remote-User} is absent or empty
   */
  public static UserInfo read(MultiMap headers) {
    String user = headers.get(USER);
    if (user == null || user.isEmpty()) {
      return null;
    }
    Scan scan = new Scan(true, false);
    headers.forEach(scan);
    return scan.identity();
  }

  /**
   * Reads the identity as {@link #read} and removes every {@code X-Remote-*} header as {@link #removeIdentity}, with
   * one pass over the entries (the serving side of a peer hop).
   *
   * @param headers the request headers (mutated)
   * @return the identity, or {@code null} when {@code X-Remote-User} is absent or empty
   */
  static UserInfo take(MultiMap headers) {
    Scan scan = new Scan(true, true);
    headers.forEach(scan);
    scan.removeFrom(headers);
    return scan.identity();
  }

  /**
   * Removes every {@code X-Remote-*} header (any case). One pass over the entries; the headers are changed only when
   * one is present.
   *
   * @param headers the headers (mutated)
   */
  public static void removeIdentity(MultiMap headers) {
    Scan scan = new Scan(false, true);
    headers.forEach(scan);
    scan.removeFrom(headers);
  }

  /**
   * Tells whether a header name is a front-proxy identity header, i.e. starts with {@code X-Remote-} (any case).
   *
   * @param name a header name
   * @return true for the headers {@link #removeIdentity} removes
   */
  static boolean isIdentityHeader(String name) {
    return name.regionMatches(true, 0, REMOTE_PREFIX, 0, REMOTE_PREFIX.length());
  }

  /**
   * One pass over header entries: the identity headers' values (user and uid: the first; groups and extras: all, in
   * order) and the names to remove. Allocates nothing for a header that is not {@code X-Remote-*}.
   */
  private static final class Scan implements BiConsumer<String, String> {
    private final boolean readIdentity;
    private final boolean collectNames;
    private String user;
    private String uid;
    private List<String> groups;
    private Map<String, List<String>> extra;
    private List<String> names;

    Scan(boolean readIdentity, boolean collectNames) {
      this.readIdentity = readIdentity;
      this.collectNames = collectNames;
    }

    @Override
    public void accept(String name, String value) {
      if (!isIdentityHeader(name)) {
        return;
      }
      if (collectNames) {
        if (names == null) {
          names = new ArrayList<>(4);
        }
        names.add(name);
      }
      if (!readIdentity) {
        return;
      }
      // exact names compare ASCII case-insensitively, as MultiMap.get/getAll do
      if (asciiEqualsIgnoreCase(name, USER)) {
        if (user == null) {
          user = value;
        }
      } else if (asciiEqualsIgnoreCase(name, UID)) {
        if (uid == null) {
          uid = value;
        }
      } else if (asciiEqualsIgnoreCase(name, GROUP)) {
        if (groups == null) {
          groups = new ArrayList<>(4);
        }
        groups.add(value);
      } else if (name.length() > EXTRA_PREFIX.length() && name.regionMatches(true, 0, EXTRA_PREFIX, 0,
          EXTRA_PREFIX.length())) {
        String key = unescapeExtraKey(name.substring(EXTRA_PREFIX.length()).toLowerCase(Locale.ROOT));
        if (extra == null) {
          extra = new LinkedHashMap<>();
        }
        extra.computeIfAbsent(key, k -> new ArrayList<>(2)).add(value);
      }
    }

    /** @return the identity read, or null when there is no non-empty user */
    UserInfo identity() {
      if (user == null || user.isEmpty()) {
        return null;
      }
      return new UserInfo(user, uid == null ? "" : uid, groups == null ? List.of() : groups,
          extra == null ? Map.of() : extra);
    }

    /** Removes the collected names (a name seen more than once is removed once). */
    void removeFrom(MultiMap headers) {
      if (names == null) {
        return;
      }
      String last = null;
      for (String n : names) {
        if (!n.equals(last)) {
          headers.remove(n);
          last = n;
        }
      }
    }
  }

  /** ASCII case-insensitive equality, as the header maps compare names; {@code b} is given in ASCII. */
  static boolean asciiEqualsIgnoreCase(String a, String b) {
    int n = a.length();
    if (n != b.length()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y && lower(x) != lower(y)) {
        return false;
      }
    }
    return true;
  }

  private static char lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
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
