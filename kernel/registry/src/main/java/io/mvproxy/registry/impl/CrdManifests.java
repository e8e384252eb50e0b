package io.mvproxy.registry.impl;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads Kubernetes manifests from multi-document YAML (or JSON, a YAML subset) with {@link YamlDocuments} (aliases
 * resolved and bounded): leading {@code ---}, comments and empty documents are accepted; every non-empty document
 * must be a mapping.
 */
public final class CrdManifests {
  /** Largest YAML input accepted, in code points (the prometheus-operator CRDs are ~0.6 MB each). */
  public static final int MAX_CODE_POINTS = 64 * 1024 * 1024;

  private CrdManifests() {
  }

  /**
   * @param yaml one or more YAML documents
   * @return the non-empty documents as JSON objects, in order
   * @throws IllegalArgumentException when the text is not YAML or a document is not a mapping
   */
  public static List<JsonObject> parse(String yaml) {
    return objects(YamlDocuments.read(yaml, LIMITS));
  }

  /** Bounds for manifests read by tools and tests: {@link #MAX_CODE_POINTS}, 50 aliases, 1000 levels. */
  private static final YamlDocuments.Limits LIMITS = new YamlDocuments.Limits(MAX_CODE_POINTS, 50, 1000,
      16_000_000, Long.MAX_VALUE);

  private static List<JsonObject> objects(List<Object> docs) {
    List<JsonObject> out = new ArrayList<>();
    for (Object d : docs) {
      if (!(d instanceof JsonObject o)) {
        throw new IllegalArgumentException("a YAML document is not a mapping");
      }
      out.add(o);
    }
    return out;
  }

  /**
   * @param in a stream of YAML documents (UTF-8); not closed
   * @return the non-empty documents
   * @throws IllegalArgumentException on bad YAML
   */
  public static List<JsonObject> read(InputStream in) {
    try {
      return objects(YamlDocuments.read(in, LIMITS));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid YAML: " + e.getMessage(), e);
    }
  }

  /**
   * @param file a YAML file
   * @return the non-empty documents
   * @throws UncheckedIOException when the file cannot be read; IllegalArgumentException on bad YAML
   */
  public static List<JsonObject> read(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

}
