package io.mvproxy.crd;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads Kubernetes manifests from multi-document YAML (or JSON, a YAML subset): leading {@code ---}, comments and
 * empty documents are accepted; every non-empty document must be a mapping.
 */
public final class CrdManifests {
  /** Largest YAML input accepted, in code points (the prometheus-operator CRDs are ~0.6 MB each). */
  public static final int MAX_CODE_POINTS = 64 * 1024 * 1024;

  private CrdManifests() {
  }

  /** @return a YAML mapper able to read large manifests */
  static ObjectMapper yamlMapper() {
    LoaderOptions lo = new LoaderOptions();
    lo.setCodePointLimit(MAX_CODE_POINTS);
    return new ObjectMapper(YAMLFactory.builder().loaderOptions(lo).build());
  }

  /** @return a new YAML mapper for apply configurations (request bodies, limited elsewhere to 3 MiB) */
  public static ObjectMapper yamlMapperForPatches() {
    return yamlMapper();
  }

  /**
   * @param yaml one or more YAML documents
   * @return the non-empty documents as JSON objects, in order
   * @throws IllegalArgumentException when the text is not YAML or a document is not a mapping
   */
  public static List<JsonObject> parse(String yaml) {
    ObjectMapper mapper = yamlMapper();
    try (JsonParser p = mapper.getFactory().createParser(yaml)) {
      return readAll(mapper, p);
    } catch (IOException e) {
      throw new IllegalArgumentException("invalid YAML: " + e.getMessage(), e);
    }
  }

  /**
   * @param in a stream of YAML documents (UTF-8); not closed
   * @return the non-empty documents
   * @throws IllegalArgumentException on bad YAML
   */
  public static List<JsonObject> read(InputStream in) {
    ObjectMapper mapper = yamlMapper();
    try (JsonParser p = mapper.getFactory().createParser(in)) {
      return readAll(mapper, p);
    } catch (IOException e) {
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

  @SuppressWarnings("unchecked")
  private static List<JsonObject> readAll(ObjectMapper mapper, JsonParser p) throws IOException {
    List<JsonObject> out = new ArrayList<>();
    MappingIterator<JsonNode> it = mapper.readValues(p, JsonNode.class);
    while (it.hasNextValue()) {
      JsonNode n = it.nextValue();
      if (n == null || n.isNull() || n.isMissingNode() || n.isTextual() && n.asText().isEmpty()) {
        continue;
      }
      if (!n.isObject()) {
        throw new IllegalArgumentException("a YAML document is not a mapping: " + n.getNodeType());
      }
      out.add(new JsonObject(mapper.convertValue(n, Map.class)));
    }
    return out;
  }
}
