package io.mvproxy.node.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Reads Kubernetes manifests: multi-document YAML (or JSON) into JSON objects, skipping empty documents. */
public final class ManifestReader {
  private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param in   the stream (not closed)
   * @param name the file name, for messages
   * @return each non-empty document as JSON
   * @throws IllegalArgumentException naming the file when it is not YAML/JSON or a document is not an object
   */
  public List<JsonObject> read(InputStream in, String name) {
    List<JsonObject> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = yaml.readerFor(JsonNode.class).readValues(in)) {
      while (it.hasNext()) {
        JsonNode doc = it.next();
        if (doc == null || doc.isNull() || doc.isMissingNode()) {
          continue;
        }
        if (!doc.isObject()) {
          throw new IllegalArgumentException(name + ": a manifest must be an object");
        }
        out.add(new JsonObject(json.writeValueAsString(doc)));
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith(name)) {
        throw iae;
      }
      throw new IllegalArgumentException(name + ": not valid YAML: " + e.getMessage(), e);
    }
    return out;
  }
}
