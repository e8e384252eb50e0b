package io.mvproxy.node.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parsing half of {@link ConfigLoader}: typed access to raw config values (as found in JSON or flags) with
 * their {@link ConfigKey} defaults; every failure is a {@link ConfigException} naming the key.
 */
final class RawValues {
  private final Map<ConfigKey, Object> raw;
  private final Path baseDir;

  /**
   * @param raw     key to raw value; missing keys take their {@link ConfigKey#defaultValue()}
   * @param baseDir folder relative paths resolve against
   */
  RawValues(Map<ConfigKey, Object> raw, Path baseDir) {
  this.raw = raw;
  this.baseDir = baseDir;
  }

  /** @return the folder relative paths resolve against */
  Path baseDir() {
  return baseDir;
  }

  /** @return whether {@code k} was given with a non-empty value */
  boolean has(ConfigKey k) {
    Object o = raw.get(k);
    return o != null && !(o instanceof String s && s.isEmpty());
  }

  /** @return the value given for {@code k}, else its default (may be null) */
  Object raw(ConfigKey k) {
    return has(k) ? raw.get(k) : k.defaultValue();
  }

  /** @return {@code k} as a string, or null when unset without default; fails unless a string */
  String string(ConfigKey k) {
    Object o = raw(k);
    if (o == null) {
      return null;
    }
    if (!(o instanceof String)) {
      throw new ConfigException(k, "must be a string");
    }
    return (String) o;
  }

  /**
   * @return {@code k} as a boolean: a JSON boolean, or the text Go's {@code strconv.ParseBool} reads ({@code true},
   *     {@code 1}, {@code t}, {@code T}, {@code TRUE}, {@code True}, and the same for false), as a kube-apiserver flag
   * @throws ConfigException naming {@code k} for anything else
   */
  boolean bool(ConfigKey k) {
    Object o = raw(k);
    if (o instanceof Boolean b) {
      return b;
    }
    return switch (String.valueOf(o).trim()) {
      case "1", "t", "T", "TRUE", "true", "True" -> true;
      case "0", "f", "F", "FALSE", "false", "False" -> false;
      default -> throw new ConfigException(k, "\"" + o + "\" is not true or false");
    };
  }

  /** @return {@code k} as a non-negative int (number or decimal text) */
  int integer(ConfigKey k) {
    Object o = raw(k);
    try {
      int i = o instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(o).trim());
      if (i < 0) {
        throw new ConfigException(k, "must not be negative");
      }
      return i;
    } catch (NumberFormatException e) {
      throw new ConfigException(k, "\"" + o + "\" is not an integer");
    }
  }

  /** @return {@code k} as a positive duration: a number of seconds or a Go duration ({@link GoDuration}) */
  Duration duration(ConfigKey k) {
    Duration d = anyDuration(k);
    if (d.isNegative() || d.isZero()) {
      throw new ConfigException(k, "must be positive");
    }
    return d;
  }

  /**
   * @return {@code k} as a duration of any sign: a number of seconds, or a Go duration with an optional sign
   * @throws ConfigException naming {@code k} when it is no duration
   */
  private Duration anyDuration(ConfigKey k) {
    Object o = raw(k);
    if (o instanceof Number n) {
      return Duration.ofMillis(Math.round(n.doubleValue() * 1000));
    }
    String text = String.valueOf(o).trim();
    boolean negative = text.startsWith("-");
    Duration d = GoDuration.parse(negative || text.startsWith("+") ? text.substring(1) : text);
    if (d == null) {
      throw new ConfigException(k, "\"" + o + "\" is not a duration (e.g. 60s, 1m0s, 500ms)");
    }
    return negative ? d.negated() : d;
  }

  /** @return {@code k} as a port, 0-65535 */
  int port(ConfigKey k) {
    int p = integer(k);
    if (p > 65535) {
      throw new ConfigException(k, p + " is not a port (0-65535)");
    }
    return p;
  }

  /** @return {@code k} as an IPv4 or IPv6 literal, or null when unset */
  String ip(ConfigKey k) {
    String s = string(k);
    if (s == null) {
      return null;
    }
    if (!s.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
      throw new ConfigException(k, "\"" + s + "\" is not an IP address");
    }
    try {
      InetAddress.getByName(s);
    } catch (IOException e) {
      throw new ConfigException(k, "\"" + s + "\" is not an IP address");
    }
    return s;
  }

  /** @return {@code k} as a readable regular file resolved against {@link #baseDir()}, or null when unset */
  Path file(ConfigKey k) {
    String s = string(k);
    if (s == null) {
      return null;
    }
    Path p = baseDir.resolve(s).normalize();
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new ConfigException(k, "file not found or not readable: " + p);
    }
    return p;
  }

  /** @return {@code k} resolved against {@link #baseDir()}; fails when it exists and is not a folder */
  Path dir(ConfigKey k) {
    String s = string(k);
    Path p = baseDir.resolve(s).normalize();
    if (Files.exists(p) && !Files.isDirectory(p)) {
      throw new ConfigException(k, "not a directory: " + p);
    }
    return p;
  }

  /** A Go duration where {@code 0} means "off" (e.g. {@code --etcd-compaction-interval}). */
  Duration durationOrZero(ConfigKey k) {
    Object o = raw(k);
    if (o instanceof Number n && n.doubleValue() == 0 || "0".equals(String.valueOf(o).trim())) {
      return Duration.ZERO;
    }
    Duration d = anyDuration(k);
    if (d.isNegative()) {
      throw new ConfigException(k, "must not be negative");
    }
    return d;
  }

  /** @return {@code k}, which must be one of {@code allowed} */
  String oneOf(ConfigKey k, String... allowed) {
    String s = string(k);
    for (String a : allowed) {
      if (a.equals(s)) {
        return s;
      }
    }
    throw new ConfigException(k, "\"" + s + "\" is not one of " + String.join(", ", allowed));
  }

  /** @return {@code k} as {@code namespace/name:port} to {@code http(s)://host:port} pairs (JSON object or k=v list) */
  Map<String, String> map(ConfigKey k) {
    Object o = raw(k);
    Map<String, String> out = new LinkedHashMap<>();
    if (o instanceof JsonObject j) {
      j.forEach(e -> out.put(e.getKey(), String.valueOf(e.getValue())));
    } else if (o != null) {
      for (String pair : String.valueOf(o).split(",")) {
        if (pair.isBlank()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new ConfigException(k, "\"" + pair.trim() + "\" is not key=value");
        }
        out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
    }
    for (Map.Entry<String, String> e : out.entrySet()) {
      if (!e.getKey().matches("[a-z0-9.-]+/[a-z0-9.-]+:\\d{1,5}")) {
        throw new ConfigException(k, "\"" + e.getKey() + "\" is not namespace/name:port");
      }
      if (!e.getValue().matches("https?://[^/]+/?")) {
        throw new ConfigException(k, "\"" + e.getValue() + "\" is not an http(s)://host:port URL");
      }
    }
    return out;
  }

  /**
   * @return {@code k} as trimmed strings (JSON array or comma-separated text), never null
   * @throws ConfigException naming {@code k} for another JSON type (a number, an object, an array of non-strings)
   */
  List<String> list(ConfigKey k) {
    Object o = raw(k);
    List<String> out = new ArrayList<>();
    if (o instanceof JsonArray a) {
      for (Object e : a) {
        if (!(e instanceof String str)) {
          throw new ConfigException(k, "must be a JSON array of strings or a comma-separated list");
        }
        out.add(str.trim());
      }
    } else if (o != null && !(o instanceof String)) {
      throw new ConfigException(k, "must be a JSON array of strings or a comma-separated list");
    } else if (o != null) {
      for (String s : String.valueOf(o).split(",")) {
        if (!s.isBlank()) {
          out.add(s.trim());
        }
      }
    }
    return List.copyOf(out);
  }
}
