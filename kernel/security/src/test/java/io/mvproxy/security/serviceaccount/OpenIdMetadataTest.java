package io.mvproxy.security.serviceaccount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.SignedJWT;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The service account issuer discovery documents as kubernetes {@code pkg/serviceaccount/openidmetadata.go} renders
 * them (its {@code TestServeConfiguration}, {@code TestServeKeys}, {@code TestNewOpenIDMetadata} cases): a token our
 * issuer signs verifies with the published key of its {@code kid}, with RSA and ECDSA keys.
 */
@Tag("unit")
class OpenIdMetadataTest {
  static final String ISS = "https://issuer.example.com";

  static KeyPair rsa() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    return g.generateKeyPair();
  }

  static KeyPair ec(String curve) throws Exception {
    // BouncyCastle's provider: the JDK's no longer generates secp256k1 keys
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC", new org.bouncycastle.jce.provider.BouncyCastleProvider());
    g.initialize(new ECGenParameterSpec(curve));
    return g.generateKeyPair();
  }

  static String token(KeyPair pair) {
    Instant now = Instant.now();
    return new ServiceAccountTokenIssuer(ISS, pair.getPrivate()).sign(new ServiceAccountClaims("ns", "sa", "uid-1",
        List.of(ISS), now, now.plusSeconds(600), "jti"));
  }

  @Test
  void configurationAndKeysVerifyTheIssuersTokens() throws Exception {
    KeyPair r = rsa();
    KeyPair e256 = ec("secp256r1");
    KeyPair e384 = ec("secp384r1");
    OpenIdMetadata m = OpenIdMetadata.create(ISS, null, "10.0.0.1:6443",
        List.of(r.getPublic(), e256.getPublic(), e384.getPublic()));
    assertEquals("{\"issuer\":\"https://issuer.example.com\",\"jwks_uri\":\"https://10.0.0.1:6443/openid/v1/jwks\","
        + "\"response_types_supported\":[\"id_token\"],\"subject_types_supported\":[\"public\"],"
        + "\"id_token_signing_alg_values_supported\":[\"ES256\",\"ES384\",\"RS256\"]}", m.configText());
    JsonArray keys = new JsonObject(m.keysetText()).getJsonArray("keys");
    assertEquals(3, keys.size());
    assertEquals(List.of("use", "kty", "kid", "alg", "n", "e"), List.copyOf(keys.getJsonObject(0).fieldNames()));
    assertEquals(List.of("use", "kty", "kid", "crv", "alg", "x", "y"),
        List.copyOf(keys.getJsonObject(1).fieldNames()));
    assertEquals("AQAB", keys.getJsonObject(0).getString("e"));
    assertEquals("P-384", keys.getJsonObject(2).getString("crv"));
    JWKSet set = JWKSet.parse(m.keysetText());
    for (KeyPair pair : List.of(r, e256, e384)) {
      SignedJWT jwt = SignedJWT.parse(token(pair));
      JWK key = set.getKeyByKeyId(jwt.getHeader().getKeyID());
      assertEquals(ServiceAccountKeys.keyId(pair.getPublic()), key.getKeyID());
      assertEquals("sig", key.getKeyUse().identifier());
      assertEquals(jwt.getHeader().getAlgorithm(), key.getAlgorithm());
      assertTrue(jwt.verify(pair.getPublic() instanceof java.security.interfaces.RSAPublicKey
          ? new RSASSAVerifier(key.toRSAKey()) : new ECDSAVerifier(key.toECKey())), key.toJSONString());
    }
    // another key does not verify it
    SignedJWT other = SignedJWT.parse(token(rsa()));
    assertEquals(null, set.getKeyByKeyId(other.getHeader().getKeyID()));
  }

  @Test
  void jwksUriGivenOrFromTheExternalAddress() throws Exception {
    List<PublicKey> keys = List.of(rsa().getPublic());
    assertEquals("https://cdn.example.com/jwks.json", new JsonObject(OpenIdMetadata.create(ISS,
        "https://cdn.example.com/jwks.json", "", keys).configText()).getString("jwks_uri"));
    assertEquals("https://[fd00::1]:443/openid/v1/jwks", new JsonObject(OpenIdMetadata.create(ISS, "",
        "[fd00::1]:443", keys).configText()).getString("jwks_uri"));
  }

  @Test
  void unusableInputsWithUpstreamsTexts() throws Exception {
    List<PublicKey> keys = List.of(rsa().getPublic());
    record Case(String issuer, String jwks, String external, List<PublicKey> keys, String message) {
    }
    for (Case c : List.of(
        new Case("", null, "a:1", keys, "empty issuer URL"),
        new Case(ISS, null, "", keys, "either the JWKS URI or the default external address, or both, must be set"),
        new Case("kubernetes.default.svc", null, "a:1", keys,
            "issuer URL must use https scheme, got: kubernetes.default.svc"),
        new Case("http://issuer.example.com", null, "a:1", keys,
            "issuer URL must use https scheme, got: http://issuer.example.com"),
        new Case(ISS + "?x=1", null, "a:1", keys, "issuer URL may not include a query, got: " + ISS + "?x=1"),
        new Case(ISS + "#f", null, "a:1", keys, "issuer URL may not include a fragment, got: " + ISS + "#f"),
        new Case(ISS, "http://cdn.example.com/k", "", keys,
            "jwksURI requires https scheme, parsed as: http://cdn.example.com/k"),
        new Case(ISS, null, "a:1", List.of(), "no keys provided for validating keyset"),
        new Case(ISS, null, "a:1", List.of(ec("secp256k1").getPublic()),
            "error constructing JWK for key #0: unknown private key curve, must be 256, 384, or 521"))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> OpenIdMetadata.create(c.issuer(), c.jwks(), c.external(), c.keys()), c.message());
      assertEquals(c.message(), e.getMessage());
    }
  }
}
