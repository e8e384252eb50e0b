package io.mvproxy.security.serviceaccount;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks a bearer token the way kube-apiserver's {@code pkg/serviceaccount/jwt.go} and {@code claims.go} do, up to
 * (not including) the ServiceAccount lookup: a JWT whose {@code iss} is not one of {@code --service-account-issuer}
 * is not ours (left to other authenticators); ours must verify against one of the {@code --service-account-key-file}
 * keys, share an audience with the requested ones ({@code --api-audiences} by default), and be inside
 * {@code nbf}..{@code exp} with go-jose's leeway of one minute. Thread-safe.
 */
public final class ServiceAccountTokenVerifier {
  /** go-jose's {@code jwt.DefaultLeeway}. */
  static final Duration LEEWAY = Duration.ofMinutes(1);
  private final List<String> issuers;
  private final List<JWSVerifier> verifiers;
  private final List<String> apiAudiences;

  /**
   * @param issuers      accepted {@code iss} values
   * @param keys         verification keys (RSA, ECDSA)
   * @param apiAudiences the API server's audiences (the default requested audiences)
   * @throws IllegalArgumentException for a key that is neither RSA nor ECDSA
   */
  public ServiceAccountTokenVerifier(List<String> issuers, List<PublicKey> keys, List<String> apiAudiences) {
    this.issuers = List.copyOf(issuers);
    this.apiAudiences = List.copyOf(apiAudiences);
    List<JWSVerifier> vs = new ArrayList<>();
    for (PublicKey k : keys) {
      try {
        if (k instanceof RSAPublicKey rsa) {
          vs.add(new RSASSAVerifier(rsa));
        } else if (k instanceof ECPublicKey ec) {
          vs.add(new ECDSAVerifier(ec));
        } else {
          throw new IllegalArgumentException("service account key must be RSA or ECDSA, not " + k.getAlgorithm());
        }
      } catch (JOSEException e) {
        throw new IllegalArgumentException("unusable service account key: " + e.getMessage(), e);
      }
    }
    this.verifiers = List.copyOf(vs);
  }

  /** @return the API server's audiences */
  public List<String> apiAudiences() {
    return apiAudiences;
  }

  /**
   * @param token     a bearer token
   * @param requested the audiences asked for (a TokenReview's {@code spec.audiences}); null or empty: the API
   *                  audiences
   * @param now       the time to check {@code exp}/{@code nbf}/{@code iat} against
   * @return the claims, with {@code audiences} narrowed to those shared with {@code requested}; null when the token
   *     is not a JWT of one of our issuers
   * @throws InvalidTokenException with kube-apiserver's text when it is ours but not acceptable
   */
  public ServiceAccountClaims verify(String token, List<String> requested, Instant now) {
    SignedJWT jwt;
    JWTClaimsSet c;
    try {
      jwt = SignedJWT.parse(token);
      c = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      return null;
    }
    if (c.getIssuer() == null || !issuers.contains(c.getIssuer())) {
      return null;
    }
    if (!signedByOurs(jwt)) {
      throw new InvalidTokenException("go-jose/go-jose: error in cryptographic primitive");
    }
    List<String> tokenAuds = c.getAudience() == null || c.getAudience().isEmpty() ? apiAudiences : c.getAudience();
    List<String> want = requested == null || requested.isEmpty() ? apiAudiences : requested;
    List<String> shared = tokenAuds.stream().filter(want::contains).distinct().toList();
    if (shared.isEmpty() && !apiAudiences.isEmpty()) {
      throw new InvalidTokenException("token audiences " + goQuote(tokenAuds) + " is invalid for the target audiences "
          + goQuote(want));
    }
    checkTimes(c, now);
    Map<String, Object> k8s;
    try {
      k8s = c.getJSONObjectClaim("kubernetes.io");
    } catch (ParseException e) {
      k8s = null;
    }
    Object sa = k8s == null ? null : k8s.get("serviceaccount");
    if (!(sa instanceof Map<?, ?> ref) || !(k8s.get("namespace") instanceof String ns) || ns.isEmpty()
        || !(ref.get("name") instanceof String name) || name.isEmpty() || !(ref.get("uid") instanceof String uid)) {
      throw new InvalidTokenException("service account token claims are incomplete (kubernetes.io namespace, "
          + "serviceaccount name and uid are required)");
    }
    String sub = "system:serviceaccount:" + ns + ":" + name;
    if (!sub.equals(c.getSubject())) {
      throw new InvalidTokenException("service account token subject " + c.getSubject() + " does not match " + sub);
    }
    return new ServiceAccountClaims(ns, name, uid, shared, instant(c.getIssueTime(), now),
        instant(c.getExpirationTime(), now), c.getJWTID() == null ? "" : c.getJWTID());
  }

  private boolean signedByOurs(SignedJWT jwt) {
    for (JWSVerifier v : verifiers) {
      try {
        if (v.supportedJWSAlgorithms().contains(jwt.getHeader().getAlgorithm()) && jwt.verify(v)) {
          return true;
        }
      } catch (JOSEException | IllegalStateException e) {
        // another key's algorithm or curve: try the next
      }
    }
    return false;
  }

  /** go-jose {@code Claims.ValidateWithLeeway} as claims.go maps its errors. */
  private static void checkTimes(JWTClaimsSet c, Instant now) {
    if (c.getNotBeforeTime() != null && now.plus(LEEWAY).isBefore(c.getNotBeforeTime().toInstant())) {
      throw new InvalidTokenException("service account token is not valid yet");
    }
    if (c.getExpirationTime() != null && now.minus(LEEWAY).isAfter(c.getExpirationTime().toInstant())) {
      throw new InvalidTokenException("service account token has expired");
    }
    if (c.getIssueTime() != null && now.plus(LEEWAY).isBefore(c.getIssueTime().toInstant())) {
      throw new InvalidTokenException("service account token is issued in the future");
    }
  }

  private static Instant instant(Date d, Instant fallback) {
    return d == null ? fallback : d.toInstant();
  }

  /** Go's {@code %q} of a {@code []string}: {@code ["a" "b"]}. */
  static String goQuote(List<String> values) {
    return values.stream().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        .collect(Collectors.joining(" ", "[", "]"));
  }
}
