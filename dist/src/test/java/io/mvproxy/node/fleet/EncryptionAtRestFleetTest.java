package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.storage.EtcdRunner;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Encryption at rest ({@code --encryption-provider-config}) on a one-node fleet over a real etcd (every node of a
 * fleet decrypts by itself; one keeps the three starts short), driven with kubectl
 * and checked with etcdctl: a Secret is stored as {@code k8s:enc:aescbc:v1:key1:...} (no plain data in etcd) and
 * read back plain; a value that does not decrypt is kube's 500 InternalError; keys rotate by
 * reordering, {@code kubectl get secrets -A -o json | kubectl replace -f -} re-encrypts with the new first key, and
 * the old key can then be removed; {@code /readyz} fails {@code kms-providers} while the file on disk is broken;
 * with {@code --encryption-provider-config-automatic-reload} the start-up reload is counted and a broken file leaves
 * the node ready.
 */
@Tag("fleet")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EncryptionAtRestFleetTest {
  static final String KEY1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  static final String KEY2 = "HxweHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=";
  static final String PLAIN = "hunter2-plain-text";
  static final String KEY = "/registry/secrets/default/s1";
  EtcdRunner etcd;
  FleetHarness fleet;
  Path tmp;
  Path enc;
  String kubectl;

  @BeforeAll
  void start() throws Exception {
    kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    Assumptions.assumeTrue(EtcdRunner.available(), "etcd is not installed");
    etcd = EtcdRunner.single();
    tmp = Files.createTempDirectory("mvproxy-encryption");
    enc = tmp.resolve("encryption.yaml");
    config("- aescbc: {keys: [{name: key1, secret: " + KEY1 + "}]}", "- identity: {}");
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>());
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    fleet.configureAll(new JsonObject().put("storageBackend", "etcd3").put("etcdServers", etcd.servers())
        .put("encryptionProviderConfig", enc.toString()));
    fleet.startAllAndAwaitReady(120_000);
  }

  @AfterAll
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  void config(String... providers) throws Exception {
    Files.writeString(enc, "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
        + "- resources: [secrets]\n  providers:\n  " + String.join("\n  ", providers) + "\n");
  }

  KubectlFleetTest.Result kubectl(String context, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", context, "--cache-dir", tmp.resolve("kube-cache").toString(), "--request-timeout=20s"));
    cmd.addAll(List.of(args));
    return KubectlFleetTest.run(cmd, 60);
  }

  /** @return the raw value etcd holds at {@code key}, one char per byte */
  String etcdGet(String key) throws Exception {
    return new String(etcdctl("get", key, "--print-value-only"), StandardCharsets.ISO_8859_1);
  }

  byte[] etcdctl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("etcdctl", "--endpoints", etcd.servers()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), new String(out, StandardCharsets.UTF_8));
    return out;
  }

  void readsPlainThroughEveryNode() throws Exception {
    for (String node : List.of("node-a")) {
      KubectlFleetTest.Result r = kubectl(node, "get", "secret", "s1", "-o", "jsonpath={.data.password}");
      assertEquals(0, r.code(), r.all());
      assertEquals(PLAIN, new String(Base64.getDecoder().decode(r.out().trim()), StandardCharsets.UTF_8));
    }
  }

  void restart() throws Exception {
    fleet.stopAll();
    fleet.startAllAndAwaitReady(120_000);
  }

  @Test
  void secretsAreCiphertextInEtcdAndKeysRotate() throws Exception {
    long t0 = System.nanoTime();
    KubectlFleetTest.Result created = kubectl("node-a", "create", "secret", "generic", "s1",
        "--from-literal=password=" + PLAIN);
    assertEquals(0, created.code(), created.all());
    String raw = etcdGet(KEY);
    assertTrue(raw.startsWith("k8s:enc:aescbc:v1:key1:"), raw);
    assertFalse(raw.contains(PLAIN) || raw.contains(Base64.getEncoder().encodeToString(PLAIN.getBytes())),
        "etcd holds no plain data");
    readsPlainThroughEveryNode();

    // a value that does not decrypt: kube's 500, never data
    etcdctl("put", "/registry/secrets/default/bad", "k8s:enc:aescbc:v1:key1:0123456789abcdef0123456789abcdef");
    KubectlFleetTest.Result bad = kubectl("node-a", "get", "secret", "bad");
    assertTrue(bad.code() != 0 && bad.err().contains("Internal error occurred: unable to transform key "
        + "\"/registry/secrets/default/bad\": invalid"), bad.all());
    HttpsClient.Resp status = fleet.admin().get(fleet.node("node-a").url(), "/api/v1/namespaces/default/secrets/bad");
    assertEquals(500, status.status(), status.text());
    assertEquals("InternalError", status.json().getString("reason"), status.text());
    etcdctl("del", "/registry/secrets/default/bad");

    // rotation: a new first provider writes, the old key still reads
    config("- aesgcm: {keys: [{name: key2, secret: " + KEY2 + "}]}",
        "- aescbc: {keys: [{name: key1, secret: " + KEY1 + "}]}", "- identity: {}");
    long t1 = System.nanoTime();
    restart();
    System.out.printf("FIGURE encryption: node restart %d ms%n", (System.nanoTime() - t1) / 1_000_000);
    readsPlainThroughEveryNode();
    assertTrue(etcdGet(KEY).startsWith("k8s:enc:aescbc:v1:key1:"), "not rewritten by a read");
    KubectlFleetTest.Result replaced = KubectlFleetTest.run(List.of("sh", "-c", kubectl + " --kubeconfig "
        + fleet.pki().kubeconfig() + " --context node-a get secrets -A -o json | " + kubectl + " --kubeconfig "
        + fleet.pki().kubeconfig() + " --context node-a replace -f -"), 60);
    assertEquals(0, replaced.code(), replaced.all());
    assertTrue(etcdGet(KEY).startsWith("k8s:enc:aesgcm:v1:key2:"), "re-encrypted with key2");

    // the file on disk broken, without automatic reload: /readyz reports it (the node keeps the configuration it
    // started with)
    String good = Files.readString(enc);
    Files.writeString(enc, good.replace(KEY2, "AAEC"));
    FleetTest.await("kms-providers failing", 30_000, () -> {
      HttpsClient.Resp r = fleet.admin().get(fleet.node("node-a").url(), "/readyz?verbose");
      return r.status() == 500 && r.text().contains("[-]kms-providers failed");
    });
    // key1 removed: what was re-encrypted still reads
    config("- aesgcm: {keys: [{name: key2, secret: " + KEY2 + "}]}", "- identity: {}");
    assertEquals(200, fleet.admin().get(fleet.node("node-a").url(), "/readyz").status());
    restart();
    readsPlainThroughEveryNode();

    // --encryption-provider-config-automatic-reload: the reloader runs (its counters are exposed, the file the node
    // started with not counted as a reload); a broken file is a counted reload failure at the next minute's check,
    // not unreadiness (upstream's dynamic check covers KMS plugins only)
    fleet.configureAll(new JsonObject().put("encryptionProviderConfigAutomaticReload", true));
    restart();
    String metrics = fleet.admin().get(fleet.node("node-a").url(), "/metrics").text();
    assertTrue(metrics.matches("(?s).*apiserver_encryption_config_controller_automatic_reloads_total\\{"
        + "apiserver_id_hash=\"sha256:[0-9a-f]{64}\",status=\"success\"} 0\\.0\n.*"), metrics);
    readsPlainThroughEveryNode();
    Files.writeString(enc, Files.readString(enc).replace(KEY2, "AAEC"));
    HttpsClient.Resp ready = fleet.admin().get(fleet.node("node-a").url(), "/readyz?verbose");
    assertEquals(200, ready.status(), ready.text());
    assertTrue(ready.text().contains("[+]kms-providers ok"), ready.text());
    System.out.printf("FIGURE encryption: test body %d ms%n", (System.nanoTime() - t0) / 1_000_000);
  }
}
