package io.mvproxy.storage.encryption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code EncryptionConfiguration} parser: upstream's validation texts, wildcards, masking, lookup. */
@Tag("unit")
class EncryptionConfigTest {
  static final String HEAD = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n";
  static final String K16 = "AAECAwQFBgcICQoLDA0ODw==";
  static final String K32 = TransformersTest.KEY_B64;

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      no resources         | resources: []                                                                       | resources: Required value: at least one resources is required
      empty resource list  | 'resources: [{resources: [], providers: [identity: {}]}]'                          | resources[0].resources: Required value: at least one resources[0].resources is required
      no providers         | 'resources: [{resources: [secrets], providers: []}]'                               | resources[0].providers: Required value: at least one resources[0].providers is required
      capital letters      | 'resources: [{resources: [Secrets], providers: [identity: {}]}]'                   | resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters
      bare star            | 'resources: [{resources: ["*"], providers: [identity: {}]}]'                       | resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources
      across groups        | 'resources: [{resources: [secrets.*], providers: [identity: {}]}]'                 | resources[0].resources[0]: Invalid value: "secrets.*": encrypting the same resource across groups is not supported
      events group         | 'resources: [{resources: [events.events.k8s.io], providers: [identity: {}]}]'      | resources[0].resources[0]: Invalid value: "events.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file
      no REST API          | 'resources: [{resources: [serviceipallocations], providers: [identity: {}]}]'      | resources[0].resources[0]: Invalid value: "serviceipallocations": resources which do not have REST API/s cannot be encrypted
      duplicate            | 'resources: [{resources: [secrets, secrets], providers: [identity: {}]}]'          | resources[0].resources: Invalid value: ["secrets","secrets"]: the same resource cannot be specified multiple times
      overlap              | 'resources: [{resources: [secrets, "*."], providers: [identity: {}]}]'             | resources[0].resources: Invalid value: ["secrets","*."]: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked
      unknown provider     | 'resources: [{resources: [secrets], providers: [{aes: {}}]}]'                      | resources[0].providers[0]: Invalid value: {"aes":{}}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity
      two in one           | 'resources: [{resources: [secrets], providers: [{identity: {}, aesgcm: {}}]}]'     | resources[0].providers[0]: Invalid value: {"identity":{},"aesgcm":{}}: more than one provider specified in a single element, should split into different list elements
      no keys              | 'resources: [{resources: [secrets], providers: [{aesgcm: {keys: []}}]}]'           | resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required
      key without name     | 'resources: [{resources: [secrets], providers: [{aescbc: {keys: [{secret: K16}]}}]}]' | resources[0].providers[0].aescbc.keys[0].name: Required value: name is a mandatory field for a key
      key without secret   | 'resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k}]}}]}]'  | resources[0].providers[0].aescbc.keys[0].secret: Required value: secret is a mandatory field for a key
      not base64           | 'resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k, secret: "!!"}]}}]}]' | resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded
      aes key length       | 'resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: k, secret: AAEC}]}}]}]' | resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 3, expected one of [16 24 32]
      secretbox key length | 'resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: k, secret: K16}]}}]}]' | resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]
      kms refused          | 'resources: [{resources: [secrets], providers: [{kms: {name: k, endpoint: "unix:///k.sock"}}]}]' | resources[0].providers[0].kms: Unsupported value: the kms provider (envelope encryption through a KMS plugin) is not supported by mvproxy; use aesgcm, aescbc, secretbox or identity
      masked by group      | 'resources: [{resources: ["*.apps"], providers: [identity: {}]}, {resources: [deployments.apps], providers: [identity: {}]}]' | resource "deployments.apps" is masked by earlier rule "*.apps"
      masked by all        | 'resources: [{resources: ["*.*"], providers: [identity: {}]}, {resources: [secrets], providers: [identity: {}]}]' | resource "secrets" is masked by earlier rule "*.*"
      masked core          | 'resources: [{resources: ["*."], providers: [identity: {}]}, {resources: [secrets], providers: [identity: {}]}]' | resource "secrets" is masked by earlier rule "*."
      """)
  void refuses(String name, String body, String message) {
    String text = HEAD + body.replace("K16", K16);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EncryptionConfig.parse(text));
    assertEquals(message, e.getMessage());
  }

  @Test
  void refusesOtherKindsAndBrokenYaml() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> EncryptionConfig.parse(
        "apiVersion: v1\nkind: EncryptionConfig\nresources: []")).getMessage().startsWith("no kind \"EncryptionConfig\""));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> EncryptionConfig.parse("resources: [: x"))
        .getMessage().startsWith("error converting YAML to JSON"));
  }

  @Test
  void reportsSeveralErrorsAtOnce() {
    String m = assertThrows(IllegalArgumentException.class, () -> EncryptionConfig.parse(HEAD
        + "resources: [{resources: [Secrets], providers: []}]")).getMessage();
    assertTrue(m.startsWith("[resources[0].resources[0]: Invalid value") && m.contains(", resources[0].providers:"),
        m);
  }

  @Test
  void looksUpExactThenGroupThenAll() {
    EncryptionConfig c = EncryptionConfig.parse(HEAD + """
        resources:
        - resources: [secrets, widgets.demo.mvproxy.io]
          providers: [{aesgcm: {keys: [{name: key1, secret: %s}]}}, {identity: {}}]
        - resources: ["*.apps"]
          providers: [{secretbox: {keys: [{name: k, secret: %s}]}}]
        - resources: ["*."]
          providers: [{aescbc: {keys: [{name: k, secret: %s}]}}]
        - resources: ["*.*"]
          providers: [{identity: {}}]
        """.formatted(K32, K32, K16));
    assertNotNull(c.transformerFor("", "secrets"));
    assertSame(c.transformerFor("", "secrets"), c.transformerFor("", "secrets"));
    assertNotNull(c.transformerFor("demo.mvproxy.io", "widgets"));
    assertSame(c.transformerFor("apps", "*"), c.transformerFor("apps", "deployments"));
    assertSame(c.transformerFor("", "*"), c.transformerFor("", "configmaps"));
    assertSame(c.transformerFor("*", "*"), c.transformerFor("rbac.authorization.k8s.io", "roles"));
    assertEquals(Map.of("secrets", List.of("aesgcm(key1)", "identity"), "widgets.demo.mvproxy.io",
        List.of("aesgcm(key1)", "identity"), "*.apps", List.of("secretbox(k)"), "*.", List.of("aescbc(k)"), "*.*",
        List.of("identity")), c.summary());
    EncryptionConfig only = EncryptionConfig.parse(HEAD + "resources: [{resources: [secrets], providers: "
        + "[identity: {}]}]");
    assertNull(only.transformerFor("", "configmaps"), "unconfigured resources: identity");
  }

  @Test
  void sameResourceInTwoEntriesTakesBothProviderLists() {
    EncryptionConfig c = EncryptionConfig.parse(HEAD + """
        resources:
        - resources: [secrets]
          providers: [{aesgcm: {keys: [{name: a, secret: %s}]}}]
        - resources: [secrets, configmaps]
          providers: [{identity: {}}]
        """.formatted(K32));
    assertEquals(List.of("aesgcm(a)", "identity"), c.summary().get("secrets"));
  }

  @Test
  void readsJsonFilesAndNamesTheFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("enc.json");
    Files.writeString(f, "{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"EncryptionConfiguration\","
        + "\"resources\":[{\"resources\":[\"secrets\"],\"providers\":[{\"aescbc\":{\"keys\":[{\"name\":\"key1\","
        + "\"secret\":\"" + K32 + "\"}]}}]}]}");
    assertNotNull(EncryptionConfig.load(f).transformerFor("", "secrets"));
    Files.writeString(f, "{\"apiVersion\":\"apiserver.config.k8s.io/v1\",\"kind\":\"EncryptionConfiguration\"}");
    assertEquals("error while parsing encryption provider configuration file \"" + f + "\": resources: Required "
        + "value: at least one resources is required", assertThrows(IllegalArgumentException.class,
        () -> EncryptionConfig.load(f)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> EncryptionConfig.load(dir.resolve("none")))
        .getMessage().startsWith("error opening encryption provider configuration file"));
  }
}
