package io.mvproxy.security.serviceaccount;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.RSAKey;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Service account issuer discovery (KEP-1393; kubernetes {@code pkg/serviceaccount/openidmetadata.go},
 * {@code pkg/routes/openidmetadata.go}): the OIDC provider configuration served at {@link #CONFIG_PATH} and the JSON
 * Web Key Set of the keys that verify service account tokens at {@link #JWKS_PATH}, both rendered once when the node
 * starts. Relying parties outside the cluster (cloud workload identity federation, Vault) verify the fleet's tokens
 * with them.
 *
 * @param configJson the discovery document: {@code issuer}, {@code jwks_uri}, {@code response_types_supported}
 *                   ({@code id_token}), {@code subject_types_supported} ({@code public}),
 *                   {@code id_token_signing_alg_values_supported} (the keys' algorithms, sorted)
 * @param keysetJson {@code {"keys":[...]}}: each key with {@code use} {@code sig}, {@code kty}, {@code kid}
 *                   ({@link ServiceAccountKeys#keyId}), {@code alg} (RS256, ES256, ES384, ES512) and its public
 *                   parameters, in go-jose's field order
 */
public record OpenIdMetadata(byte[] configJson, byte[] keysetJson) {
  /** Path of the OIDC provider configuration ({@code serviceaccount.OpenIDConfigPath}). */
  public static final String CONFIG_PATH = "/.well-known/openid-configuration";
  /** Path of the key set ({@code serviceaccount.JWKSPath}). */
  public static final String JWKS_PATH = "/openid/v1/jwks";
  /** Content type of the configuration ({@code routes/openidmetadata.go mimeJSON}). */
  public static final String CONFIG_CONTENT_TYPE = "application/json";
  /** Content type of the key set ({@code mimeJWKS}). */
  public static final String JWKS_CONTENT_TYPE = "application/jwk-set+json";
  /**
   * {@code Cache-Control: public, max-age=3600}: the keys come from files read once at start-up, so kube-apiserver's
   * static key getter's {@code GetCacheAgeMaxSeconds} (one hour) applies.
   */
  public static final String CACHE_CONTROL = "public, max-age=3600";

  /**
   * Renders both documents ({@code NewOpenIDMetadataProvider}).
   *
   * @param issuerUrl              the first {@code --service-account-issuer}: an https URL without query or fragment
   * @param jwksUri                {@code --service-account-jwks-uri} (an https URL), or null / empty to derive it
   * @param defaultExternalAddress {@code host:port} the server is reached at, giving
   *                               {@code https://<address>/openid/v1/jwks} when {@code jwksUri} is unset
   * @param keys                   the public keys verifying service account tokens ({@code --service-account-key-file})
   * @return the documents
   * @throws IllegalArgumentException with upstream's text when the issuer or the JWKS URI is not usable (kube-apiserver
   *                                  then logs it and serves neither path), or a key is neither RSA nor a P-256,
   *                                  P-384 or P-521 ECDSA key
   */
  public static OpenIdMetadata create(String issuerUrl, String jwksUri, String defaultExternalAddress,
                                      List<PublicKey> keys) {
    if (issuerUrl == null || issuerUrl.isEmpty()) {
      throw new IllegalArgumentException("empty issuer URL");
    }
    boolean noJwks = jwksUri == null || jwksUri.isEmpty();
    if (noJwks && (defaultExternalAddress == null || defaultExternalAddress.isEmpty())) {
      throw new IllegalArgumentException("either the JWKS URI or the default external address, or both, must be set");
    }
    URI iss = parse(issuerUrl);
    if (!"https".equals(iss.getScheme())) {
      throw new IllegalArgumentException("issuer URL must use https scheme, got: " + issuerUrl);
    }
    if (iss.getRawQuery() != null && !iss.getRawQuery().isEmpty()) {
      throw new IllegalArgumentException("issuer URL may not include a query, got: " + issuerUrl);
    }
    if (iss.getRawFragment() != null && !iss.getRawFragment().isEmpty()) {
      throw new IllegalArgumentException("issuer URL may not include a fragment, got: " + issuerUrl);
    }
    String jwks;
    if (noJwks) {
      jwks = "https://" + defaultExternalAddress + JWKS_PATH;
      URI parsed = parse(jwks);
      if (!"https".equals(parsed.getScheme()) || parsed.getRawAuthority() == null
          || !defaultExternalAddress.equals(parsed.getRawAuthority()) || !JWKS_PATH.equals(parsed.getRawPath())) {
        throw new IllegalArgumentException("attempted to build jwks_uri from external address "
            + defaultExternalAddress + ", but could not construct a valid URL");
      }
    } else {
      URI u = parse(jwksUri);
      if (!"https".equals(u.getScheme())) {
        throw new IllegalArgumentException("jwksURI requires https scheme, parsed as: " + jwksUri);
      }
      jwks = jwksUri;
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no keys provided for validating keyset");
    }
    List<Map<String, Object>> jwkList = new ArrayList<>();
    TreeSet<String> algs = new TreeSet<>();
    for (int i = 0; i < keys.size(); i++) {
      Map<String, Object> jwk = jwk(keys.get(i), i);
      jwkList.add(jwk);
      algs.add((String) jwk.get("alg"));
    }
    io.vertx.core.json.JsonObject config = new io.vertx.core.json.JsonObject()
        .put("issuer", issuerUrl)
        .put("jwks_uri", jwks)
        .put("response_types_supported", List.of("id_token"))
        .put("subject_types_supported", List.of("public"))
        .put("id_token_signing_alg_values_supported", List.copyOf(algs));
    io.vertx.core.json.JsonArray keyset = new io.vertx.core.json.JsonArray();
    jwkList.forEach(k -> keyset.add(new io.vertx.core.json.JsonObject(k)));
    return new OpenIdMetadata(config.encode().getBytes(StandardCharsets.UTF_8),
        new io.vertx.core.json.JsonObject().put("keys", keyset).encode().getBytes(StandardCharsets.UTF_8));
  }

  /** @return the configuration as text (tests, logs) */
  public String configText() {
    return new String(configJson, StandardCharsets.UTF_8);
  }

  /** @return the key set as text */
  public String keysetText() {
    return new String(keysetJson, StandardCharsets.UTF_8);
  }

  /** go-jose's {@code rawJSONWebKey} order: use, kty, kid, crv, alg, x, y, n, e. */
  private static Map<String, Object> jwk(PublicKey key, int index) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("use", "sig");
    if (key instanceof RSAPublicKey rsa) {
      RSAKey k = new RSAKey.Builder(rsa).build();
      out.put("kty", "RSA");
      out.put("kid", ServiceAccountKeys.keyId(key));
      out.put("alg", "RS256");
      out.put("n", k.getModulus().toString());
      out.put("e", k.getPublicExponent().toString());
      return out;
    }
    if (key instanceof ECPublicKey ec) {
      Curve curve = Curve.forECParameterSpec(ec.getParams());
      String alg = Curve.P_256.equals(curve) ? "ES256" : Curve.P_384.equals(curve) ? "ES384"
          : Curve.P_521.equals(curve) ? "ES512" : null;
      if (alg == null) {
        throw new IllegalArgumentException("error constructing JWK for key #" + index
            + ": unknown private key curve, must be 256, 384, or 521");
      }
      ECKey k = new ECKey.Builder(curve, ec).build();
      out.put("kty", "EC");
      out.put("kid", ServiceAccountKeys.keyId(key));
      out.put("crv", curve.getName());
      out.put("alg", alg);
      out.put("x", k.getX().toString());
      out.put("y", k.getY().toString());
      return out;
    }
    throw new IllegalArgumentException("error constructing JWK for key #" + index + ": unknown public key type, must "
        + "be *rsa.PublicKey, *ecdsa.PublicKey, or jose.OpaqueSigner");
  }

  private static URI parse(String s) {
    try {
      return new URI(s);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OpenIdMetadata m && java.util.Arrays.equals(configJson, m.configJson)
        && java.util.Arrays.equals(keysetJson, m.keysetJson);
  }

  @Override
  public int hashCode() {
    return 31 * java.util.Arrays.hashCode(configJson) + java.util.Arrays.hashCode(keysetJson);
  }

  @Override
  public String toString() {
    return configText();
  }
}
