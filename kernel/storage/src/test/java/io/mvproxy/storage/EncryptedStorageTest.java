package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchOptions;
import io.mvproxy.storage.encryption.EncryptionConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Encryption at rest on the memory backend (one Hazelcast member on loopback): the Hazelcast map and the event ring
 * hold ciphertext only; reads, lists and watch events are plain; key rotation re-encrypts on an unchanged update;
 * a value that cannot be decrypted is a 500, never data.
 */
@Tag("fleet")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EncryptedStorageTest {
  static final String HEAD = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n";
  static final String K1 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  static final String K2 = "HxweHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=";
  static final String SECRET_VALUE = "c3VwZXItc2VjcmV0LXZhbHVl"; // base64 of super-secret-value
  final Vertx vertx = Vertx.vertx();
  HazelcastInstance hz;
  MemoryBackend backend;

  @BeforeAll
  void start() {
    int[] p = TestHazelcast.freePorts(1);
    hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    backend = new MemoryBackend(vertx, hz, StorageConfig.memory());
  }

  @AfterAll
  void stop() {
    hz.shutdown();
    vertx.close();
  }

  NodeStorage storage(String providers) {
    EncryptionConfig c = EncryptionConfig.parse(HEAD + "resources:\n- resources: [secrets, \"*.demo.mvproxy.io\"]\n"
        + "  providers:\n" + providers);
    return new NodeStorage(vertx, backend, StorageConfig.memory(), c);
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static JsonObject secret(String name, String value) {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Secret").put("metadata", new JsonObject()
        .put("name", name).put("namespace", "default")).put("data", new JsonObject().put("k", value));
  }

  String raw(String key) {
    String v = (String) hz.getMap(MemoryBackend.DATA).get(key);
    return v.substring(v.indexOf('\n') + 1);
  }

  @Test
  void mapsHoldCiphertextAndReadsArePlain() throws Exception {
    NodeStorage s = storage("  - aesgcm: {keys: [{name: key1, secret: " + K1 + "}]}\n  - identity: {}\n");
    ResourceStorage secrets = s.resource("secrets");
    BlockingQueue<WatchEvent> events = new LinkedBlockingQueue<>();
    Watch w = await(secrets.watch(new WatchOptions("", await(s.currentRevision()), false),
        new io.mvproxy.api.storage.WatchListener() {
          @Override
          public void onEvent(WatchEvent event) {
            events.add(event);
          }

          @Override
          public void onError(StorageException error) {
          }
        }));
    await(secrets.create("default/a", secret("a", SECRET_VALUE)));
    String stored = raw("/registry/secrets/default/a");
    assertTrue(stored.startsWith("k8s:enc:aesgcm:v1:key1:"), stored);
    assertFalse(stored.contains(SECRET_VALUE), "no plain data in the map");
    assertEquals(SECRET_VALUE, await(secrets.get("default/a")).object().getJsonObject("data").getString("k"));
    assertEquals(1, await(secrets.list(new io.mvproxy.api.storage.ListOptions("default/", null, null, 0, null,
        null))).items().size());
    WatchEvent e = events.poll(10, TimeUnit.SECONDS);
    assertEquals(WatchEvent.Type.ADDED, e.type());
    assertEquals(SECRET_VALUE, e.object().object().getJsonObject("data").getString("k"), "watch events decrypted");
    for (Object ring : hz.getDistributedObjects().stream().filter(o -> o.getName().startsWith(MemoryBackend.EVENTS))
        .toList()) {
      var rb = (com.hazelcast.ringbuffer.Ringbuffer<?>) ring;
      for (long i = rb.headSequence(); i <= rb.tailSequence(); i++) {
        assertFalse(String.valueOf(rb.readOne(i)).contains(SECRET_VALUE), "no plain data in the event ring");
      }
    }
    w.cancel();
    // a group-wildcard rule covers custom resources; an unconfigured resource stays plain
    await(s.resource("demo.mvproxy.io/widgets").create("default/w", new JsonObject().put("metadata",
        new JsonObject().put("name", "w"))));
    assertTrue(raw("/registry/demo.mvproxy.io/widgets/default/w").startsWith("k8s:enc:aesgcm:v1:key1:"));
    await(s.resource("configmaps").create("default/c", new JsonObject().put("metadata",
        new JsonObject().put("name", "c")).put("data", new JsonObject().put("x", "é"))));
    assertTrue(raw("/registry/configmaps/default/c").startsWith("{"));
    assertEquals("é", await(s.resource("configmaps").get("default/c")).object().getJsonObject("data")
        .getString("x"), "non-ASCII text survives the byte-string values");
  }

  @Test
  void rotationRewritesStaleValuesAndRemovedKeysFail() throws Exception {
    NodeStorage old = storage("  - aescbc: {keys: [{name: key1, secret: " + K1 + "}]}\n");
    await(old.resource("secrets").create("default/r", secret("r", SECRET_VALUE)));
    assertTrue(raw("/registry/secrets/default/r").startsWith("k8s:enc:aescbc:v1:key1:"));
    NodeStorage rotated = storage("  - aesgcm: {keys: [{name: key2, secret: " + K2 + "}]}\n"
        + "  - aescbc: {keys: [{name: key1, secret: " + K1 + "}]}\n");
    StoredObject before = await(rotated.resource("secrets").get("default/r"));
    // an update that changes nothing still writes a stale value: re-encrypted with the new first provider
    StoredObject after = await(rotated.resource("secrets").guaranteedUpdate("default/r", null,
        cur -> cur.object().copy()));
    assertTrue(after.resourceVersion() > before.resourceVersion());
    assertTrue(raw("/registry/secrets/default/r").startsWith("k8s:enc:aesgcm:v1:key2:"));
    StoredObject again = await(rotated.resource("secrets").guaranteedUpdate("default/r", null,
        cur -> cur.object().copy()));
    assertEquals(after.resourceVersion(), again.resourceVersion(), "a fresh value is not rewritten");
    NodeStorage removed = storage("  - aescbc: {keys: [{name: key1, secret: " + K1 + "}]}\n");
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> await(removed.resource("secrets").get("default/r")));
    StorageException se = assertInstanceOf(StorageException.class, e.getCause());
    assertEquals(500, se.code());
    assertEquals("Internal error occurred: unable to transform key \"/registry/secrets/default/r\": no matching "
        + "prefix found", se.getMessage());
    NodeStorage plain = new NodeStorage(vertx, backend, StorageConfig.memory());
    se = assertInstanceOf(StorageException.class, org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> await(plain.resource("secrets").get("default/r"))).getCause());
    assertEquals("Internal error occurred: unable to transform key \"/registry/secrets/default/r\": identity "
        + "transformer tried to read encrypted data", se.getMessage());
  }

  /**
   * {@code --encryption-provider-config-automatic-reload}: a changed file is put in force on the store already open
   * and on one opened later, without a new NodeStorage (namespace {@code reload}: the other tests list
   * {@code default}) (the key rotation sequence on a running node); an invalid
   * file is a counted failure that leaves the configuration in force; an unchanged file does nothing.
   */
  @Test
  void automaticReloadRotatesKeysOnTheRunningStorage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    String first = HEAD + "resources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: key1, secret: "
        + K1 + "}]}\n";
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("enc.yaml"), first);
    EncryptionConfig started = EncryptionConfig.load(file);
    NodeStorage s = new NodeStorage(vertx, backend, StorageConfig.memory(), started);
    ResourceStorage secrets = s.resource("secrets");
    await(secrets.create("reload/a", secret("reload-a", SECRET_VALUE)));
    assertTrue(raw("/registry/secrets/reload/a").startsWith("k8s:enc:aescbc:v1:key1:"));
    io.mvproxy.storage.encryption.EncryptionConfigReloader reloader =
        new io.mvproxy.storage.encryption.EncryptionConfigReloader(file, started, s::reloadEncryption);
    assertEquals(io.mvproxy.storage.encryption.EncryptionConfigReloader.Outcome.UNCHANGED, reloader.check(),
        "the file the node started with is not a reload");
    assertEquals(0, reloader.successes());

    // step 1 of a rotation: the new key first, the old one still read
    java.nio.file.Files.writeString(file, HEAD + "resources:\n- resources: [secrets, configmaps]\n  providers:\n"
        + "  - aesgcm: {keys: [{name: key2, secret: " + K2 + "}]}\n  - aescbc: {keys: [{name: key1, secret: " + K1
        + "}]}\n");
    assertEquals(io.mvproxy.storage.encryption.EncryptionConfigReloader.Outcome.RELOADED, reloader.check());
    await(secrets.create("reload/b", secret("reload-b", SECRET_VALUE)));
    assertTrue(raw("/registry/secrets/reload/b").startsWith("k8s:enc:aesgcm:v1:key2:"),
        "the open store writes with the new first provider");
    assertEquals(SECRET_VALUE, await(secrets.get("reload/a")).object().getJsonObject("data").getString("k"),
        "values of the old key still read");
    await(s.resource("configmaps").create("reload/c", new JsonObject().put("metadata",
        new JsonObject().put("name", "reload-c"))));
    assertTrue(raw("/registry/configmaps/reload/c").startsWith("k8s:enc:aesgcm:v1:key2:"),
        "a resource the new file names is encrypted");
    // the rewrite of step 2: an unchanged update of a value of the old key writes it with the new one
    await(secrets.guaranteedUpdate("reload/a", null, cur -> cur.object().copy()));
    assertTrue(raw("/registry/secrets/reload/a").startsWith("k8s:enc:aesgcm:v1:key2:"));

    java.nio.file.Files.writeString(file, "kind: EncryptionConfiguration\nresources: [oops");
    assertEquals(io.mvproxy.storage.encryption.EncryptionConfigReloader.Outcome.FAILED, reloader.check());
    assertEquals(1, reloader.failures());
    await(secrets.create("reload/d", secret("reload-d", SECRET_VALUE)));
    assertTrue(raw("/registry/secrets/reload/d").startsWith("k8s:enc:aesgcm:v1:key2:"),
        "an invalid file leaves the configuration in force");

    // step 3: the old key dropped; what only it can read now fails, as upstream
    java.nio.file.Files.writeString(file, HEAD + "resources:\n- resources: [secrets]\n  providers:\n"
        + "  - aesgcm: {keys: [{name: key2, secret: " + K2 + "}]}\n");
    assertEquals(io.mvproxy.storage.encryption.EncryptionConfigReloader.Outcome.RELOADED, reloader.check());
    assertEquals(2, reloader.successes());
    assertEquals(SECRET_VALUE, await(secrets.get("reload/a")).object().getJsonObject("data").getString("k"));
    ExecutionException gone = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> await(s.resource("configmaps").get("reload/c")));
    assertTrue(gone.getCause().getMessage().contains("unable to transform key"), gone.getCause().getMessage());
  }
}
