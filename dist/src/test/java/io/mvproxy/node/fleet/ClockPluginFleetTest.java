package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The example code plugin ({@code plugins/examples/clock-plugin}), its real jar as Maven built it, dropped into
 * node-b's plugin folder of a 2-node fleet; node-a has no plugin. Its {@code alarms} kind, declared through the
 * registry's public API ({@code io.mvproxy.registry}), is served by the node's registry: create, get, list, Table,
 * watch, patch and delete work through node-b and, proxied, through node-a; the schema's defaults and 422s, and the
 * plugin strategy's status and 422, come back as kube-apiserver's. Its hand-written {@code clocks} keep working.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class ClockPluginFleetTest {
  static final String ALARMS = "/apis/time.example.com/v1/namespaces/default/alarms";
  static final Map<String, String> JSON = Map.of("Content-Type", "application/json", "Accept", "application/json");
  FleetHarness fleet;
  HttpsClient admin;
  Path tmp;
  String a;
  String b;

  /**
   * @param work a scratch folder
   * @return the clock plugin's jar: the test class path's entry for it (the local repository's or the reactor's
   *     jar), or, when the reactor gives its classes folder (before {@code package}), that folder as a jar
   */
  static Path clockJar(Path work) throws java.io.IOException {
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(e);
      if (e.endsWith(".jar") && p.getFileName().toString().startsWith("mvproxy-clock-plugin")) {
        return p;
      }
      if (Files.isDirectory(p) && p.endsWith(Path.of("clock-plugin", "target", "classes"))) {
        Path jar = work.resolve("mvproxy-clock-plugin.jar");
        try (java.io.OutputStream os = Files.newOutputStream(jar);
             java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(os);
             java.util.stream.Stream<Path> files = Files.walk(p)) {
          for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
            out.putNextEntry(new java.util.jar.JarEntry(p.relativize(f).toString().replace('\\', '/')));
            out.write(Files.readAllBytes(f));
            out.closeEntry();
          }
        }
        return jar;
      }
    }
    throw new IllegalStateException("mvproxy-clock-plugin is not on the test class path (a test dependency of dist)");
  }

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-clock-plugin-test");
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", Map.of());
    plugins.put("node-b", Map.of());
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    Files.copy(clockJar(tmp), fleet.dir().resolve("plugins-node-b").resolve("clock-plugin.jar"));
    admin = fleet.admin();
    fleet.startAllAndAwaitReady(admin, 120_000);
    a = fleet.node("node-a").url();
    b = fleet.node("node-b").url();
    // node-a learns node-b's alarms through peer discovery
    FleetTest.await("node-a lists alarms in time.example.com/v1", 60_000, () -> {
      HttpsClient.Resp r = admin.get(a, "/apis/time.example.com/v1");
      return r.status() == 200 && r.text().contains("\"alarms\"") && r.text().contains("\"clocks\"");
    });
  }

  @AfterAll
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  static String alarm(String name, JsonObject spec) {
    return new JsonObject().put("apiVersion", "time.example.com/v1").put("kind", "Alarm")
        .put("metadata", new JsonObject().put("name", name).put("labels", new JsonObject().put("app", "wake")))
        .put("spec", spec).encode();
  }

  HttpsClient.Resp send(HttpMethod m, String url, String path, String body) throws Exception {
    return admin.send(m, url, path, JSON, body);
  }

  @Test
  @Order(1)
  void discoveryListsTheKindAsServedByTheRegistry() throws Exception {
    JsonObject list = admin.get(a, "/apis/time.example.com/v1").json();
    JsonObject alarms = null;
    for (Object o : list.getJsonArray("resources")) {
      if ("alarms".equals(((JsonObject) o).getString("name"))) {
        alarms = (JsonObject) o;
      }
    }
    assertTrue(alarms != null, list.encode());
    assertEquals("Alarm", alarms.getString("kind"));
    assertTrue(alarms.getBoolean("namespaced"));
    assertEquals(new JsonArray().add("alm"), alarms.getJsonArray("shortNames"));
    assertTrue(alarms.getJsonArray("verbs").contains("watch"), alarms.encode());
    assertTrue(list.encode().contains("alarms/status"), list.encode());
    // a kind served by code is not a CustomResourceDefinition
    assertEquals(404, admin.get(b,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/alarms.time.example.com").status());
  }

  @Test
  @Order(2)
  void createThroughEitherNodeDefaultsAndSetsStatus() throws Exception {
    HttpsClient.Resp created = send(HttpMethod.POST, b, ALARMS, alarm("wake",
        new JsonObject().put("time", "2999-01-01T07:00:00Z").put("timeZone", "Europe/Paris")));
    assertEquals(201, created.status(), created.text());
    JsonObject o = created.json();
    assertEquals(5, o.getJsonObject("spec").getInteger("snoozeMinutes"), "schema default");
    assertEquals("Scheduled", o.getJsonObject("status").getString("state"), "strategy status");
    assertEquals("2999-01-01T08:00:00+01:00", o.getJsonObject("status").getString("localTime"));
    assertFalse(o.getJsonObject("metadata").getString("uid", "").isEmpty());

    // node-a has no plugin: proxied to node-b
    HttpsClient.Resp viaA = send(HttpMethod.POST, a, ALARMS, alarm("past",
        new JsonObject().put("time", "2001-01-01T00:00:00Z")));
    assertEquals(201, viaA.status(), viaA.text());
    assertEquals("UTC", viaA.json().getJsonObject("spec").getString("timeZone"));
    assertEquals("Past", viaA.json().getJsonObject("status").getString("state"));

    HttpsClient.Resp got = admin.get(a, ALARMS + "/wake");
    assertEquals(200, got.status(), got.text());
    assertEquals(o.getJsonObject("metadata").getString("uid"), got.json().getJsonObject("metadata").getString("uid"));

    HttpsClient.Resp exists = send(HttpMethod.POST, a, ALARMS, alarm("wake",
        new JsonObject().put("time", "2999-01-01T07:00:00Z")));
    assertEquals(409, exists.status(), exists.text());
    assertEquals("alarms.time.example.com \"wake\" already exists", exists.json().getString("message"));
  }

  @Test
  @Order(3)
  void schemaAndStrategyAnswer422() throws Exception {
    HttpsClient.Resp tooLong = send(HttpMethod.POST, a, ALARMS, alarm("late",
        new JsonObject().put("time", "2999-01-01T07:00:00Z").put("snoozeMinutes", 120)));
    assertEquals(422, tooLong.status(), tooLong.text());
    assertEquals("Invalid", tooLong.json().getString("reason"));
    assertEquals("Alarm.time.example.com \"late\" is invalid: spec.snoozeMinutes: Invalid value: 120: "
        + "spec.snoozeMinutes in body should be less than or equal to 60", tooLong.json().getString("message"));

    HttpsClient.Resp noTime = send(HttpMethod.POST, b, ALARMS, alarm("late", new JsonObject()));
    assertEquals(422, noTime.status(), noTime.text());
    assertEquals("Alarm.time.example.com \"late\" is invalid: spec.time: Required value",
        noTime.json().getString("message"));

    HttpsClient.Resp badZone = send(HttpMethod.POST, a, ALARMS, alarm("late",
        new JsonObject().put("time", "2999-01-01T07:00:00Z").put("timeZone", "Mars/Olympus")));
    assertEquals(422, badZone.status(), badZone.text());
    assertEquals("Alarm.time.example.com \"late\" is invalid: spec.timeZone: Invalid value: \"Mars/Olympus\": "
        + "not a known time zone", badZone.json().getString("message"));
    JsonObject cause = badZone.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0);
    assertEquals("FieldValueInvalid", cause.getString("reason"));
    assertEquals("spec.timeZone", cause.getString("field"));

    // both: the schema's errors first, then the strategy's, as one list
    HttpsClient.Resp both = send(HttpMethod.POST, b, ALARMS, alarm("late",
        new JsonObject().put("time", "2999-01-01T07:00:00Z").put("timeZone", "Mars/Olympus").put("snoozeMinutes", -1)));
    assertEquals(422, both.status(), both.text());
    assertEquals("Alarm.time.example.com \"late\" is invalid: [spec.snoozeMinutes: Invalid value: -1: "
        + "spec.snoozeMinutes in body should be greater than or equal to 0, spec.timeZone: Invalid value: "
        + "\"Mars/Olympus\": not a known time zone]", both.json().getString("message"));
    assertEquals(404, admin.get(b, ALARMS + "/late").status());
  }

  @Test
  @Order(4)
  void listSelectorsTableWatchPatchDelete() throws Exception {
    HttpsClient.Resp list = admin.get(a, ALARMS + "?labelSelector=app%3Dwake");
    assertEquals(200, list.status(), list.text());
    assertEquals("AlarmList", list.json().getString("kind"));
    assertEquals(2, list.json().getJsonArray("items").size());
    assertEquals(1, admin.get(a, ALARMS + "?fieldSelector=metadata.name%3Dpast").json().getJsonArray("items").size());
    String rv = list.json().getJsonObject("metadata").getString("resourceVersion");

    HttpsClient.Resp table = admin.send(HttpMethod.GET, a, ALARMS,
        Map.of("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"), null);
    assertEquals(200, table.status(), table.text());
    List<String> cols = new ArrayList<>();
    table.json().getJsonArray("columnDefinitions").forEach(c -> cols.add(((JsonObject) c).getString("name")));
    assertEquals(List.of("Name", "Time", "Zone", "State", "Local Time", "Age"), cols);
    assertTrue(table.text().contains("Scheduled"), table.text());

    // spec change: the strategy recomputes status; generation goes up
    HttpsClient.Resp patched = admin.send(HttpMethod.PATCH, a, ALARMS + "/wake",
        Map.of("Content-Type", "application/merge-patch+json"), "{\"spec\":{\"timeZone\":\"Asia/Tokyo\"}}");
    assertEquals(200, patched.status(), patched.text());
    assertEquals("2999-01-01T16:00:00+09:00", patched.json().getJsonObject("status").getString("localTime"));
    assertEquals(2, patched.json().getJsonObject("metadata").getInteger("generation"));
    HttpsClient.Resp badPatch = admin.send(HttpMethod.PATCH, b, ALARMS + "/wake",
        Map.of("Content-Type", "application/merge-patch+json"), "{\"spec\":{\"timeZone\":\"Nowhere\"}}");
    assertEquals(422, badPatch.status(), badPatch.text());

    HttpsClient.Resp deleted = admin.send(HttpMethod.DELETE, a, ALARMS + "/past", Map.of(), null);
    assertEquals(200, deleted.status(), deleted.text());
    HttpsClient.Resp gone = admin.get(a, ALARMS + "/past");
    assertEquals(404, gone.status());
    assertEquals("alarms.time.example.com \"past\" not found", gone.json().getString("message"));

    // a watch through node-a from the list's resourceVersion sees the patch and the delete, in order
    HttpsClient.Resp watch = admin.send(HttpMethod.GET, a, ALARMS + "?watch=1&timeoutSeconds=2&resourceVersion=" + rv,
        Map.of(), null);
    assertEquals(200, watch.status(), watch.text());
    List<String> events = new ArrayList<>();
    for (String line : watch.text().split("\n")) {
      if (!line.isBlank()) {
        JsonObject e = new JsonObject(line);
        events.add(e.getString("type") + " " + e.getJsonObject("object").getJsonObject("metadata").getString("name"));
      }
    }
    assertEquals(List.of("MODIFIED wake", "DELETED past"), events, watch.text());
  }

  @Test
  @Order(5)
  void kubectlThroughTheNodeWithoutThePlugin() throws Exception {
    String kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    Path f = TestData.example("alarm-sample.yaml"); // the README's example
    List<String> base = List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(), "--context", "node-a",
        "--cache-dir", tmp.resolve("kube-cache").toString(), "--request-timeout=20s");
    KubectlFleetTest.Result applied = KubectlFleetTest.run(cat(base, "apply", "-f", f.toString()), 60);
    assertEquals(0, applied.code(), applied.all());
    assertTrue(applied.out().contains("alarm.time.example.com/tea created"), applied.all());
    KubectlFleetTest.Result get = KubectlFleetTest.run(cat(base, "get", "alm", "-n", "default"), 60);
    assertEquals(0, get.code(), get.all());
    assertTrue(get.out().contains("STATE") && get.out().contains("tea") && get.out().contains("Scheduled"), get.all());
    KubectlFleetTest.Result wide = KubectlFleetTest.run(cat(base, "get", "alarms", "tea", "-n", "default", "-o",
        "wide"), 60);
    assertTrue(wide.out().contains("2999-06-01T18:00:00+01:00"), wide.all()); // Europe/London in summer time
    KubectlFleetTest.Result clocks = KubectlFleetTest.run(cat(base, "get", "clocks"), 60);
    assertEquals(0, clocks.code(), clocks.all());
    assertTrue(clocks.out().contains("europe-paris"), clocks.all());
    KubectlFleetTest.Result del = KubectlFleetTest.run(cat(base, "delete", "-f", f.toString()), 60);
    assertEquals(0, del.code(), del.all());
  }

  static List<String> cat(List<String> base, String... args) {
    List<String> out = new ArrayList<>(base);
    out.addAll(List.of(args));
    return out;
  }
}
