package io.mvproxy.openapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** Test input: the CRD manifests of {@code shared/testdata/crds}, found by walking up from the working directory. */
final class TestData {
  private TestData() {
  }

  /** @return the {@code shared/testdata/crds} folder; the test is skipped (with the reason) when absent */
  static Path crdDir() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path c = p.resolve("shared/testdata/crds");
      if (Files.isDirectory(c)) {
        return c;
      }
    }
    Assumptions.abort("shared/testdata/crds not found above " + Path.of("").toAbsolutePath()
        + ": CRD fixture tests skipped");
    return null;
  }

  /** @return every CRD manifest file */
  static Stream<Path> crdFiles() throws IOException {
    try (Stream<Path> s = Files.list(crdDir())) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  /** @return the CRD documents (kind CustomResourceDefinition) of a YAML file */
  @SuppressWarnings("unchecked")
  static List<JsonObject> load(Path file) throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    List<JsonObject> out = new ArrayList<>();
    try (var parser = yaml.getFactory().createParser(file.toFile())) {
      var it = yaml.readValues(parser, Map.class);
      while (it.hasNext()) {
        Map<String, Object> m = it.next();
        if (m != null && "CustomResourceDefinition".equals(m.get("kind"))) {
          out.add(new JsonObject(m).copy());
        }
      }
    }
    return out;
  }

  /** @return a small namespaced CRD like the one of the kubectl captures (crontabs.stable.example.com) */
  static JsonObject cronTab() {
    JsonObject schema = new JsonObject().put("type", "object").put("properties", new JsonObject()
        .put("spec", new JsonObject().put("type", "object").put("properties", new JsonObject()
            .put("cronSpec", new JsonObject().put("type", "string"))
            .put("image", new JsonObject().put("type", "string"))
            .put("replicas", new JsonObject().put("type", "integer"))
            .put("port", new JsonObject().put("x-kubernetes-int-or-string", true))
            .put("note", new JsonObject().put("type", "string").put("nullable", true))
            .put("tags", new JsonObject().put("type", "array").put("x-kubernetes-preserve-unknown-fields", true)
                .put("items", new JsonObject().put("type", "string")))
            .put("template", new JsonObject().put("type", "object").put("x-kubernetes-embedded-resource", true)
                .put("x-kubernetes-preserve-unknown-fields", true)))
            .put("required", new JsonArray().add("cronSpec").add("note")))
        .put("status", new JsonObject().put("type", "object").put("properties", new JsonObject()
            .put("replicas", new JsonObject().put("type", "integer")))));
    JsonObject v1 = new JsonObject().put("name", "v1").put("served", true).put("storage", true)
        .put("schema", new JsonObject().put("openAPIV3Schema", schema))
        .put("subresources", new JsonObject().put("status", new JsonObject()).put("scale", new JsonObject()
            .put("specReplicasPath", ".spec.replicas").put("statusReplicasPath", ".status.replicas")));
    JsonObject v1beta1 = v1.copy().put("name", "v1beta1").put("storage", false);
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", "crontabs.stable.example.com"))
        .put("spec", new JsonObject().put("group", "stable.example.com").put("scope", "Namespaced")
            .put("names", new JsonObject().put("kind", "CronTab").put("plural", "crontabs")
                .put("singular", "crontab").put("shortNames", new JsonArray().add("ct")))
            .put("versions", new JsonArray().add(v1).add(v1beta1)));
  }
}
