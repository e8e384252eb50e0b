package io.mvproxy.node.config;

/** A bad configuration value; the message names the key (flag and JSON spelling). The node does not start. */
public class ConfigException extends RuntimeException {
  /** @param message what is wrong, naming the key */
  public ConfigException(String message) {
    super(message);
  }

  /**
   * @param key     the offending key
   * @param problem what is wrong with its value
   */
  public ConfigException(ConfigKey key, String problem) {
    super(key.describe() + ": " + problem);
  }
}
