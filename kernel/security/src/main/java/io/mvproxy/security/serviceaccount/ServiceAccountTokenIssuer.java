package io.mvproxy.security.serviceaccount;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Signs service account tokens as kube-apiserver's {@code serviceaccount.JWTTokenGenerator} does: a compact JWS,
 * header {@code alg} (RS256 for RSA keys, ES256/ES384/ES512 for P-256/P-384/P-521) and {@code kid} (see
 * {@link ServiceAccountKeys#keyId}), claims {@code iss} (the first {@code --service-account-issuer}), {@code sub},
 * {@code aud}, {@code exp}, {@code iat}, {@code nbf}, {@code jti} and {@code kubernetes.io}. Thread-safe.
 */
public final class ServiceAccountTokenIssuer {
  private final String issuer;
  private final JWSSigner signer;
  private final JWSHeader header;

  /**
   * @param issuer the {@code iss} claim
   * @param key    an RSA or ECDSA (P-256, P-384, P-521) private key
   * @throws IllegalArgumentException for another kind of key
   */
  public ServiceAccountTokenIssuer(String issuer, PrivateKey key) {
    this.issuer = issuer;
    JWSAlgorithm alg;
    try {
      if (key instanceof RSAPrivateKey rsa) {
        alg = JWSAlgorithm.RS256;
        signer = new RSASSASigner(rsa);
      } else if (key instanceof ECPrivateKey ec) {
        alg = switch (ServiceAccountKeys.ecBits(ec)) {
          case 256 -> JWSAlgorithm.ES256;
          case 384 -> JWSAlgorithm.ES384;
          case 521 -> JWSAlgorithm.ES512;
          default -> throw new IllegalArgumentException("unsupported ECDSA curve for signing service account tokens");
        };
        signer = new ECDSASigner(ec);
      } else {
        throw new IllegalArgumentException("service account signing key must be RSA or ECDSA, not "
            + key.getAlgorithm());
      }
    } catch (JOSEException e) {
      throw new IllegalArgumentException("unusable service account signing key: " + e.getMessage(), e);
    }
    header = new JWSHeader.Builder(alg).keyID(ServiceAccountKeys.keyId(ServiceAccountKeys.publicOf(key))).build();
  }

  /** @return the {@code iss} of the tokens this issuer signs */
  public String issuer() {
    return issuer;
  }

  /**
   * @param claims what the token says
   * @return the compact JWS ({@code header.payload.signature})
   */
  public String sign(ServiceAccountClaims claims) {
    Map<String, Object> sa = new LinkedHashMap<>();
    sa.put("name", claims.name());
    sa.put("uid", claims.uid());
    Map<String, Object> k8s = new LinkedHashMap<>();
    k8s.put("namespace", claims.namespace());
    k8s.put("serviceaccount", sa);
    JWTClaimsSet set = new JWTClaimsSet.Builder().issuer(issuer).subject(claims.username())
        .audience(claims.audiences()).expirationTime(Date.from(claims.expiry()))
        .issueTime(Date.from(claims.issuedAt())).notBeforeTime(Date.from(claims.issuedAt())).jwtID(claims.id())
        .claim("kubernetes.io", k8s).build();
    SignedJWT jwt = new SignedJWT(header, set);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw new IllegalStateException("signing a service account token failed: " + e.getMessage(), e);
    }
    return jwt.serialize();
  }
}
