package io.mvproxy.security.serviceaccount;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.nimbusds.jwt.SignedJWT;
import io.mvproxy.security.DevPki;
import io.mvproxy.security.Pem;
import io.vertx.core.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Service account tokens signed and checked as kube-apiserver's {@code pkg/serviceaccount}, with the dev PKI's keys. */
@Tag("unit")
class ServiceAccountTokensTest {
  static final String ISS = "https://kubernetes.default.svc.cluster.local";

  static ServiceAccountTokens tokens(Path dir, Map<String, ServiceAccountGetter.Found> accounts) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("node-a"), List.of(), Map.of());
    ServiceAccountTokens t = ServiceAccountTokens.fromFlags(List.of(ISS), pki.serviceAccountKey(),
        List.of(pki.serviceAccountPublicKey()), List.of(), Duration.ZERO);
    t.useGetter((ns, name, fresh) -> accounts.containsKey(ns + "/" + name)
        ? Future.succeededFuture(accounts.get(ns + "/" + name))
        : Future.failedFuture(new InvalidTokenException("serviceaccounts \"" + name + "\" not found")));
    return t;
  }

  static ServiceAccountClaims claims(String uid, Instant now, long seconds, List<String> auds) {
    return new ServiceAccountClaims("ns1", "robot", uid, auds, now, now.plusSeconds(seconds), "jti-1");
  }

  @Test
  void signedTokenAuthenticatesAsTheServiceAccount() throws Exception {
    ServiceAccountTokens t = tokens(Files.createTempDirectory("sa-keys"),
        Map.of("ns1/robot", new ServiceAccountGetter.Found("uid-1", false)));
    String jws = t.issuer().sign(claims("uid-1", Instant.now(), 3600, List.of(ISS)));
    SignedJWT jwt = SignedJWT.parse(jws);
    assertEquals("RS256", jwt.getHeader().getAlgorithm().getName());
    assertEquals(43, jwt.getHeader().getKeyID().length(), "unpadded base64url SHA-256");
    assertEquals("system:serviceaccount:ns1:robot", jwt.getJWTClaimsSet().getSubject());
    assertEquals(Map.of("namespace", "ns1", "serviceaccount", Map.of("name", "robot", "uid", "uid-1")),
        jwt.getJWTClaimsSet().getJSONObjectClaim("kubernetes.io"));
    ServiceAccountTokens.Authenticated a = t.authenticate(jws, null).toCompletionStage().toCompletableFuture().get();
    assertEquals("system:serviceaccount:ns1:robot", a.user().name());
    assertEquals("uid-1", a.user().uid());
    assertEquals(List.of("system:serviceaccounts", "system:serviceaccounts:ns1"), a.user().groups());
    assertEquals(Map.of(ServiceAccountTokens.CREDENTIAL_ID, List.of("JTI=jti-1")), a.user().extra());
    assertEquals(List.of(ISS), a.audiences());
  }

  static String refusal(ServiceAccountTokens t, String token, List<String> auds) {
    Future<ServiceAccountTokens.Authenticated> f = t.authenticate(token, auds);
    assertTrue(f.failed(), "refused");
    return f.cause().getMessage();
  }

  @Test
  void refusalsUseKubeApiserversTexts() throws Exception {
    Path dir = Files.createTempDirectory("sa-keys");
    ServiceAccountTokens t = tokens(dir, Map.of("ns1/robot", new ServiceAccountGetter.Found("uid-2", false)));
    Instant now = Instant.now();
    assertEquals("service account UID (uid-2) does not match claim (uid-1)",
        refusal(t, t.issuer().sign(claims("uid-1", now, 3600, List.of(ISS))), null));
    assertEquals("service account token has expired",
        refusal(t, t.issuer().sign(claims("uid-2", now.minusSeconds(7200), 3600, List.of(ISS))), null));
    assertEquals("token audiences [\"other\"] is invalid for the target audiences [\"" + ISS + "\"]",
        refusal(t, t.issuer().sign(claims("uid-2", now, 3600, List.of("other"))), null));
    assertEquals("token audiences [\"" + ISS + "\"] is invalid for the target audiences [\"vault\"]",
        refusal(t, t.issuer().sign(claims("uid-2", now, 3600, List.of(ISS))), List.of("vault")));
    ServiceAccountTokens deleting = tokens(dir, Map.of("ns1/robot", new ServiceAccountGetter.Found("uid-2", true)));
    assertEquals("service account token has been invalidated",
        refusal(deleting, t.issuer().sign(claims("uid-2", now, 3600, List.of(ISS))), null));
    ServiceAccountTokens none = tokens(dir, Map.of());
    assertEquals("serviceaccounts \"robot\" not found",
        refusal(none, t.issuer().sign(claims("uid-2", now, 3600, List.of(ISS))), null));
    // a key that is not ours: signature refused; another issuer or not a JWT: not ours at all
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    ServiceAccountTokenIssuer stranger = new ServiceAccountTokenIssuer(ISS, g.generateKeyPair().getPrivate());
    assertEquals("go-jose/go-jose: error in cryptographic primitive",
        refusal(t, stranger.sign(claims("uid-2", now, 3600, List.of(ISS))), null));
    assertNull(t.authenticate(new ServiceAccountTokenIssuer("https://elsewhere", Pem.readPrivateKey(
        dir.resolve("sa.key"), "k")).sign(claims("uid-2", now, 3600, List.of(ISS))), null));
    assertNull(t.authenticate("a.b.c", null));
  }

  @Test
  void ecdsaSigningKeyAndFlagValidation() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp384r1"));
    Path key = Files.createTempFile("sa-ec", ".key");
    Files.writeString(key, Pem.encodePrivateKey(g.generateKeyPair().getPrivate()));
    ServiceAccountTokens t = ServiceAccountTokens.fromFlags(List.of(ISS), key, List.of(), List.of("api"),
        Duration.ofHours(2));
    t.useGetter((ns, name, fresh) -> Future.succeededFuture(new ServiceAccountGetter.Found("u", false)));
    String jws = t.issuer().sign(claims("u", Instant.now(), 3600, List.of("api")));
    assertEquals("ES384", SignedJWT.parse(jws).getHeader().getAlgorithm().getName());
    assertTrue(t.authenticate(jws, null).succeeded());
    assertEquals(List.of("api"), t.apiAudiences());
    assertNull(ServiceAccountTokens.fromFlags(List.of(), null, List.of(), List.of(), Duration.ZERO));
    assertEquals("--service-account-max-token-expiration: the service-account-max-token-expiration must be between "
        + "1 hour and 2^32 seconds", assertThrows(IllegalArgumentException.class, () -> ServiceAccountTokens
        .fromFlags(List.of(ISS), key, List.of(), List.of(), Duration.ofMinutes(30))).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> ServiceAccountTokens.fromFlags(List.of(), key,
        List.of(), List.of(), Duration.ZERO)).getMessage().startsWith("--service-account-issuer"));
  }
}
