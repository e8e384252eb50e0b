package io.mvproxy.aggregated;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** YAML manifests to JSON for tests. */
final class Manifests {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private Manifests() {
  }

  /** @return every non-empty document of a (multi-document) YAML file */
  static List<JsonObject> read(Path file) throws IOException {
    YAMLFactory yf = new YAMLFactory();
    ObjectMapper yaml = new ObjectMapper(yf);
    List<JsonObject> out = new ArrayList<>();
    try (YAMLParser p = yf.createParser(Files.readString(file))) {
      for (JsonNode n : yaml.readValues(p, JsonNode.class).readAll()) {
        if (n != null && n.isObject()) {
          out.add(new JsonObject(JSON.writeValueAsString(n)));
        }
      }
    }
    return out;
  }

  /** @return a valid wardle APIService pointing at {@code wardle/api:443} */
  static JsonObject wardle() {
    return new JsonObject("""
        {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService",
         "metadata":{"name":"v1alpha1.wardle.example.com"},
         "spec":{"group":"wardle.example.com","version":"v1alpha1","groupPriorityMinimum":1000,
                 "versionPriority":15,"insecureSkipTLSVerify":true,
                 "service":{"namespace":"wardle","name":"api"}}}""");
  }
}
