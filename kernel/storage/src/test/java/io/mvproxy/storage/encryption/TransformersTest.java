package io.mvproxy.storage.encryption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Known-answer tests of the transformers: values built per upstream's format (prefix, key name, nonce/IV,
 * ciphertext) by an independent implementation (Python {@code cryptography} for AES, NaCl's reference vector for
 * secretbox) decrypt here, and what is written here decrypts the same way.
 */
@Tag("unit")
class TransformersTest {
  static final String KEY_B64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  static final String PLAIN = "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s1\",\"namespace\":"
      + "\"default\"},\"data\":{\"k\":\"dg==\"}}";
  static final byte[] AD = "/registry/secrets/default/s1".getBytes(StandardCharsets.UTF_8);
  /** AES-256-GCM of PLAIN, key 00..1f, nonce 64..6f, authenticated data AD: nonce || ciphertext || tag. */
  static final String GCM = "6465666768696a6b6c6d6e6f3339bf1610bf33ec4d0b3086f85f488b73e02a28e0059d1685eb8e1b9ec0d7"
      + "2de0cb6ce22177ef6599920c5edf78b1ed753af5820270635bcbd380f481e0c8ef7bfcba6db3690127ef0a8b2264e645c419543d50c6"
      + "b1ece4e58a14af59296c35e94caf5c163050f983686e402eb46311a1344da4144d";
  /** AES-256-CBC of PKCS#7-padded PLAIN, key 00..1f, IV c8..d7: IV || ciphertext. */
  static final String CBC = "c8c9cacbcccdcecfd0d1d2d3d4d5d6d7b2563d264f23eb663f0029e58111d2bfb663a659b1dc6eaf9e4ce6e1"
      + "2e55c2e356dc7edb713c1e0177df16e14cc09bcd4a0d6df67edea5c4adfc2b3ecefe77e85338be89ded23bee08d569b90685ca29ae8fc"
      + "ca417b175c261420156a8e2b88d1500fd38551dbecec653ebc9f2dfb006";
  /** NaCl's secretbox vector (key 32 x 01, nonce 24 x 02, message 64 x 03): tag || ciphertext. */
  static final String BOX = "8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a2"
      + "3c87db70acb6156dc5ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad";

  static EncryptionConfig config(String providers) {
    return EncryptionConfig.parse("apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n"
        + "resources:\n- resources: [secrets]\n  providers:\n" + providers);
  }

  static byte[] concat(String prefix, byte[] body) {
    byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(p, p.length + body.length);
    System.arraycopy(body, 0, out, p.length, body.length);
    return out;
  }

  static byte[] hex(String h) {
    return HexFormat.of().parseHex(h);
  }

  @Test
  void aesgcmReadsWhatKubeWrites() throws Exception {
    ValueTransformer t = config("  - aesgcm: {keys: [{name: key1, secret: " + KEY_B64 + "}]}\n")
        .transformerFor("", "secrets");
    ValueTransformer.Read r = t.fromStorage(concat("k8s:enc:aesgcm:v1:key1:", hex(GCM)), AD);
    assertEquals(PLAIN, new String(r.data(), StandardCharsets.UTF_8));
    assertFalse(r.stale());
    // the etcd key is authenticated: the same bytes under another key are refused with Go's text
    TransformException e = assertThrows(TransformException.class, () -> t.fromStorage(
        concat("k8s:enc:aesgcm:v1:key1:", hex(GCM)), "/registry/secrets/default/s2".getBytes()));
    assertEquals("cipher: message authentication failed", e.getMessage());
  }

  @Test
  void aescbcReadsWhatKubeWrites() throws Exception {
    ValueTransformer t = config("  - aescbc: {keys: [{name: key1, secret: " + KEY_B64 + "}]}\n")
        .transformerFor("", "secrets");
    assertEquals(PLAIN, new String(t.fromStorage(concat("k8s:enc:aescbc:v1:key1:", hex(CBC)), AD).data(),
        StandardCharsets.UTF_8));
  }

  @Test
  void secretboxMatchesNaclVector() throws Exception {
    byte[] key = new byte[32];
    Arrays.fill(key, (byte) 1);
    byte[] nonce = new byte[24];
    Arrays.fill(nonce, (byte) 2);
    byte[] msg = new byte[64];
    Arrays.fill(msg, (byte) 3);
    assertArrayEquals(hex(BOX), SecretboxTransformer.seal(key, nonce, msg));
    byte[] stored = Arrays.copyOf(nonce, 24 + hex(BOX).length);
    System.arraycopy(hex(BOX), 0, stored, 24, hex(BOX).length);
    ValueTransformer t = config("  - secretbox: {keys: [{name: k, secret: "
        + java.util.Base64.getEncoder().encodeToString(key) + "}]}\n").transformerFor("", "secrets");
    assertArrayEquals(msg, t.fromStorage(concat("k8s:enc:secretbox:v1:k:", stored), AD).data());
    stored[40] ^= 1;
    assertEquals("output array was not large enough for encryption", assertThrows(TransformException.class,
        () -> t.fromStorage(concat("k8s:enc:secretbox:v1:k:", stored), AD)).getMessage());
  }

  @Test
  void writesWithTheFirstProviderAndItsFirstKey() throws Exception {
    for (String p : new String[] {"aesgcm", "aescbc", "secretbox"}) {
      ValueTransformer t = config("  - " + p + ": {keys: [{name: key2, secret: " + KEY_B64 + "}, {name: key1,"
          + " secret: " + KEY_B64 + "}]}\n  - identity: {}\n").transformerFor("", "secrets");
      byte[] stored = t.toStorage(PLAIN.getBytes(StandardCharsets.UTF_8), AD);
      String head = "k8s:enc:" + p + ":v1:key2:";
      assertEquals(head, new String(stored, 0, head.length(), StandardCharsets.ISO_8859_1));
      assertFalse(new String(stored, StandardCharsets.ISO_8859_1).contains("Secret"), p + " leaves no plain text");
      ValueTransformer.Read r = t.fromStorage(stored, AD);
      assertEquals(PLAIN, new String(r.data(), StandardCharsets.UTF_8));
      assertFalse(r.stale());
      // plain values (identity, later in the list) read, and are stale: a rewrite encrypts them
      ValueTransformer.Read plain = t.fromStorage(PLAIN.getBytes(StandardCharsets.UTF_8), AD);
      assertTrue(plain.stale());
    }
  }

  @Test
  void rotationReadsOldKeysAsStale() throws Exception {
    String k2 = java.util.Base64.getEncoder().encodeToString(new byte[32]);
    ValueTransformer old = config("  - aescbc: {keys: [{name: key1, secret: " + KEY_B64 + "}]}\n")
        .transformerFor("", "secrets");
    ValueTransformer rotated = config("  - aesgcm: {keys: [{name: key2, secret: " + k2 + "}]}\n"
        + "  - aescbc: {keys: [{name: key1, secret: " + KEY_B64 + "}]}\n").transformerFor("", "secrets");
    byte[] stored = old.toStorage(PLAIN.getBytes(StandardCharsets.UTF_8), AD);
    ValueTransformer.Read r = rotated.fromStorage(stored, AD);
    assertTrue(r.stale());
    assertEquals(PLAIN, new String(r.data(), StandardCharsets.UTF_8));
    // once key1 is removed, its values are unreadable
    ValueTransformer removed = config("  - aesgcm: {keys: [{name: key2, secret: " + k2 + "}]}\n")
        .transformerFor("", "secrets");
    assertEquals("no matching prefix found", assertThrows(TransformException.class,
        () -> removed.fromStorage(stored, AD)).getMessage());
    // same provider, other key name
    ValueTransformer otherName = config("  - aescbc: {keys: [{name: key9, secret: " + KEY_B64 + "}]}\n")
        .transformerFor("", "secrets");
    assertEquals("no matching key was found for the provided AES transformer", assertThrows(
        TransformException.class, () -> otherName.fromStorage(stored, AD)).getMessage());
    // same key name, wrong secret: CBC padding check
    ValueTransformer wrong = config("  - aescbc: {keys: [{name: key1, secret: " + k2 + "}]}\n")
        .transformerFor("", "secrets");
    String msg = assertThrows(TransformException.class, () -> wrong.fromStorage(concat("k8s:enc:aescbc:v1:key1:",
        hex(CBC)), AD)).getMessage(); // fixed bytes: a random IV would pass the padding check 1 time in 256
    assertTrue(msg.equals("invalid padding on input") || msg.equals("invalid PKCS7 data (empty or not padded)"), msg);
  }

  @Test
  void identityRefusesEncryptedValues() {
    assertEquals(IdentityTransformer.READ_ENCRYPTED, assertThrows(TransformException.class,
        () -> IdentityTransformer.INSTANCE.fromStorage("k8s:enc:aesgcm:v1:key1:xx".getBytes(), AD)).getMessage());
  }

  @Test
  void aggregatesErrorsAsUpstream() {
    assertEquals("a", PrefixTransformers.aggregate(java.util.List.of("a", "a")));
    assertEquals("[a, b]", PrefixTransformers.aggregate(java.util.List.of("a", "b", "a")));
  }
}
