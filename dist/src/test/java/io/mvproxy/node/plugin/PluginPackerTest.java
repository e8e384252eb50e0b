package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.fleet.TestData;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mvproxy plugin pack}: real jars in the documented layout; invalid manifests refused as Kubernetes would. */
@Tag("fleet")
class PluginPackerTest {
  @TempDir
  Path tmp;

  @Test
  void packsTheDocumentedLayout() throws Exception {
    Path jar = tmp.resolve("widgets.jar");
    new PluginPacker().pack(jar, null, "2.0.0", TestData.newWidgets());
    try (ZipFile z = new ZipFile(jar.toFile())) {
      JsonObject d = new JsonObject(new String(z.getInputStream(z.getEntry(PluginJarFormat.DESCRIPTOR)).readAllBytes()));
      assertEquals("widgets", d.getString("name"));
      assertEquals("2.0.0", d.getString("version"));
      assertTrue(z.getEntry("manifests/widgets.yaml") != null && z.getEntry("manifests/gadgets.yaml") != null);
    }
    assertTrue(Files.isReadable(jar));
  }

  @Test
  void refusesInvalidOrUnsupportedManifests() throws Exception {
    Path crd = tmp.resolve("bad.yaml");
    Files.writeString(crd, """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: wrong}
        spec:
          group: bad.mvproxy.io
          scope: Namespaced
          names: {plural: bads, kind: Bad}
          versions: [{name: v1, served: true, storage: false}]
        """);
    String e = assertThrows(IllegalArgumentException.class,
        () -> new PluginPacker().pack(tmp.resolve("x.jar"), null, "", List.of(crd))).getMessage();
    assertTrue(e.contains("must be spec.names.plural") && e.contains("storage version"), e);
    Path cm = tmp.resolve("cm.yaml");
    Files.writeString(cm, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    e = assertThrows(IllegalArgumentException.class,
        () -> new PluginPacker().pack(tmp.resolve("y.jar"), null, "", List.of(cm))).getMessage();
    assertTrue(e.contains("unsupported manifest v1 ConfigMap"), e);
    assertFalse(Files.exists(tmp.resolve("x.jar")) || Files.exists(tmp.resolve("y.jar")));
  }
}
