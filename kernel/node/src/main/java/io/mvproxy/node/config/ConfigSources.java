package io.mvproxy.node.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file-loading and flag-parsing half of {@link ConfigLoader}: reads the JSON config file (rejecting unknown and
 * duplicate keys) and the {@code --flag=value} / {@code --flag value} arguments into raw values by
 * {@link ConfigKey}, flags winning. Values are not checked here ({@link RawValues}, {@link ConfigRules} do that).
 */
final class ConfigSources {
  /**
   * Raw values as found, and the folder relative paths resolve against.
   *
   * @param values  key to raw value (strings, numbers, JSON arrays and objects), in the order read
   * @param baseDir the config file's folder, or the working directory when there is no file
   */
  record Raw(Map<ConfigKey, Object> values, Path baseDir) {
  }

  private ConfigSources() {
  }

  /**
   * @param configFile the JSON file, or null for flags only
   * @param flags      {@code --flag=value} or {@code --flag value} arguments
   * @return the raw values, flags over file
   * @throws ConfigException on an unreadable or non-object file, an unknown or duplicate key, an unknown flag or a
   *     flag without a value
   */
  static Raw read(Path configFile, List<String> flags) {
    Map<ConfigKey, Object> raw = new LinkedHashMap<>();
    Path base = Path.of("").toAbsolutePath();
    if (configFile != null) {
      JsonObject json;
      try {
        String text = Files.readString(configFile);
        rejectDuplicateKeys(configFile, text);
        json = new JsonObject(text);
      } catch (IOException e) {
        throw new ConfigException("--config: cannot read " + configFile + ": " + reason(e));
      } catch (DecodeException e) {
        throw new ConfigException("--config: " + configFile + " is not a JSON object: " + e.getMessage());
      }
      for (String k : json.fieldNames()) {
        ConfigKey key = ConfigKey.find(k);
        if (key == null || !key.json().equals(k)) {
          throw new ConfigException("unknown key \"" + k + "\" in " + configFile);
        }
        raw.put(key, json.getValue(k));
      }
      base = configFile.toAbsolutePath().getParent();
    }
    for (int i = 0; i < flags.size(); i++) {
      String f = flags.get(i);
      String name = f;
      String value;
      int eq = f.indexOf('=');
      if (eq > 0) {
        name = f.substring(0, eq);
        value = f.substring(eq + 1);
      } else if (i + 1 < flags.size() && !flags.get(i + 1).startsWith("--")) {
        value = flags.get(++i);
      } else {
        throw new ConfigException(f + ": a value is required");
      }
      ConfigKey key = ConfigKey.find(name);
      if (key == null || !key.flag().equals(name)) {
        throw new ConfigException("unknown flag " + name);
      }
      raw.put(key, value);
    }
    return new Raw(raw, base);
  }

  /** Fails naming the key when the config file sets one key twice (a JSON object would silently keep the last). */
  private static void rejectDuplicateKeys(Path configFile, String text) {
    com.fasterxml.jackson.core.JsonFactory f = com.fasterxml.jackson.core.JsonFactory.builder()
        .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    try (com.fasterxml.jackson.core.JsonParser p = f.createParser(text)) {
      com.fasterxml.jackson.core.JsonToken first = p.nextToken();
      if (first != null && first != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
        throw new ConfigException("--config: " + configFile + " is not a JSON object (it starts with " + p.getText()
            + ")");
      }
      while (p.nextToken() != null) {
        // reading is the check
      }
    } catch (com.fasterxml.jackson.core.JsonParseException e) {
      if (e.getOriginalMessage().startsWith("Duplicate field")) {
        throw new ConfigException("--config: " + configFile + ": " + e.getOriginalMessage()
            .replace("Duplicate field", "key set twice:"));
      }
      // Jackson's own text without its source excerpt ("Source: REDACTED ..."), with where it stopped
      String m = e.getOriginalMessage().lines().findFirst().orElse("").strip();
      throw new ConfigException("--config: " + configFile + " is not valid JSON: " + m + " (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    } catch (IOException e) {
      throw new ConfigException("--config: cannot read " + configFile + ": " + reason(e));
    }
  }

  /** @return why a file could not be read, in words (the JDK's file exceptions carry only the path) */
  private static String reason(IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
