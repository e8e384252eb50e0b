package io.mvproxy.security.serviceaccount;

import io.mvproxy.api.UserInfo;
import io.vertx.core.Future;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A node's service account tokens: the issuer behind the TokenRequest API (absent without
 * {@code --service-account-signing-key-file}) and the authenticator of such tokens (kube-apiserver's
 * {@code serviceaccount.JWTTokenAuthenticator} with the validator of {@code claims.go}): a verified token is
 * accepted only while its ServiceAccount exists, is not being deleted and has the token's uid. The user is
 * {@code system:serviceaccount:<ns>:<name>} with the account's uid, groups {@code system:serviceaccounts} and
 * {@code system:serviceaccounts:<ns>}, and extra {@code authentication.kubernetes.io/credential-id: JTI=<jti>}.
 * Every node of a fleet accepts the tokens of any other when they share the verification keys and issuer.
 */
public final class ServiceAccountTokens {
  /** Extra key of the token's credential ID (kube 1.30+). */
  public static final String CREDENTIAL_ID = "authentication.kubernetes.io/credential-id";
  /** Group of every service account. */
  public static final String ALL_GROUP = "system:serviceaccounts";

  private final ServiceAccountTokenIssuer issuer;
  private final ServiceAccountTokenVerifier verifier;
  private final List<String> issuers;
  private final List<PublicKey> keys;
  private final Duration maxExpiration;
  private final AtomicReference<ServiceAccountGetter> getter = new AtomicReference<>();

  /**
   * @param issuer        signs TokenRequests, or null when this node issues none
   * @param verifier      checks tokens
   * @param maxExpiration longest validity granted ({@code --service-account-max-token-expiration}); zero: no limit
   */
  public ServiceAccountTokens(ServiceAccountTokenIssuer issuer, ServiceAccountTokenVerifier verifier,
                              Duration maxExpiration) {
    this(issuer, verifier, maxExpiration, List.of(), List.of());
  }

  private ServiceAccountTokens(ServiceAccountTokenIssuer issuer, ServiceAccountTokenVerifier verifier,
                               Duration maxExpiration, List<String> issuers, List<PublicKey> keys) {
    this.issuer = issuer;
    this.verifier = verifier;
    this.maxExpiration = maxExpiration;
    this.issuers = List.copyOf(issuers);
    this.keys = List.copyOf(keys);
  }

  /** The result of authenticating a token of ours. @param user the service account @param audiences shared */
  public record Authenticated(UserInfo user, List<String> audiences) {
  }

  /**
   * Builds the service from kube-apiserver flag values.
   *
   * @param issuers        {@code --service-account-issuer} (the first is written into new tokens); empty: none
   * @param signingKeyFile {@code --service-account-signing-key-file}, or null
   * @param keyFiles       {@code --service-account-key-file} values; empty: the signing key's public key
   * @param apiAudiences   {@code --api-audiences}; empty: the issuers
   * @param maxExpiration  {@code --service-account-max-token-expiration}; zero: no limit
   * @return the service, or null when neither issuers nor keys are set (service account tokens are disabled)
   * @throws IllegalArgumentException naming the flag, with kube-apiserver's texts
   */
  public static ServiceAccountTokens fromFlags(List<String> issuers, Path signingKeyFile, List<Path> keyFiles,
                                               List<String> apiAudiences, Duration maxExpiration) {
    if (issuers.isEmpty() && signingKeyFile == null && keyFiles.isEmpty()) {
      return null;
    }
    if (issuers.isEmpty() || issuers.get(0).isEmpty()) {
      throw new IllegalArgumentException("--service-account-issuer: service-account-issuer is a required flag");
    }
    for (String i : issuers) {
      if (i.contains(":") && !i.startsWith("https://")) {
        throw new IllegalArgumentException("--service-account-issuer: service-account-issuer " + i
            + " contained a ':' but was not a valid URL; URLs must use the https scheme");
      }
    }
    if (!maxExpiration.isZero() && (maxExpiration.compareTo(Duration.ofHours(1)) < 0
        || maxExpiration.getSeconds() > (1L << 32))) {
      throw new IllegalArgumentException("--service-account-max-token-expiration: the "
          + "service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    }
    PrivateKey signing = signingKeyFile == null ? null
        : ServiceAccountKeys.privateKey(signingKeyFile, "--service-account-signing-key-file");
    List<PublicKey> keys = new ArrayList<>();
    for (Path f : keyFiles) {
      keys.addAll(ServiceAccountKeys.publicKeys(f, "--service-account-key-file"));
    }
    if (keys.isEmpty()) {
      if (signing == null) {
        throw new IllegalArgumentException("--service-account-key-file: required to verify service account tokens "
            + "when --service-account-signing-key-file is not set");
      }
      keys.add(ServiceAccountKeys.publicOf(signing));
    }
    ServiceAccountTokenIssuer iss = null;
    if (signing != null) {
      iss = new ServiceAccountTokenIssuer(issuers.get(0), signing);
      String kid = ServiceAccountKeys.keyId(ServiceAccountKeys.publicOf(signing));
      if (keys.stream().noneMatch(k -> ServiceAccountKeys.keyId(k).equals(kid))) {
        throw new IllegalArgumentException("--service-account-key-file: none of its keys verifies the tokens signed "
            + "with --service-account-signing-key-file (add the signing key's public key)");
      }
    }
    List<String> auds = apiAudiences.isEmpty() ? issuers : apiAudiences;
    return new ServiceAccountTokens(iss, new ServiceAccountTokenVerifier(issuers, keys, auds), maxExpiration,
        issuers, keys);
  }

  /**
   * The service account issuer discovery documents of these flags ({@link OpenIdMetadata#create}: the first issuer,
   * the verification keys).
   *
   * @param jwksUri                {@code --service-account-jwks-uri}, or null
   * @param defaultExternalAddress {@code host:port} clients reach this server at
   * @return the documents
   * @throws IllegalArgumentException when they cannot be built (upstream's text; kube-apiserver then serves neither
   *                                  path and logs the reason)
   */
  public OpenIdMetadata openIdMetadata(String jwksUri, String defaultExternalAddress) {
    return OpenIdMetadata.create(issuers.isEmpty() ? "" : issuers.get(0), jwksUri, defaultExternalAddress, keys);
  }

  /** @return the issuer, or null when this node serves no TokenRequest */
  public ServiceAccountTokenIssuer issuer() {
    return issuer;
  }

  /** @return the API server's audiences (a TokenRequest's default {@code spec.audiences}) */
  public List<String> apiAudiences() {
    return verifier.apiAudiences();
  }

  /** @return {@code --service-account-max-token-expiration}; zero: no limit */
  public Duration maxExpiration() {
    return maxExpiration;
  }

  /** @param g where ServiceAccounts are looked up (the node sets it once its built-in APIs exist) */
  public void useGetter(ServiceAccountGetter g) {
    getter.set(g);
  }

  /**
   * @param token     a bearer token
   * @param requested audiences asked for (TokenReview {@code spec.audiences}); null or empty: the API audiences
   * @return null when the token is not ours (not a JWT of our issuers); else a future of the user, failed with an
   *     {@link InvalidTokenException} (kube-apiserver's text) when the token is not acceptable
   */
  public Future<Authenticated> authenticate(String token, List<String> requested) {
    ServiceAccountClaims c;
    try {
      c = verifier.verify(token, requested, Instant.now());
    } catch (InvalidTokenException e) {
      return Future.failedFuture(e);
    }
    if (c == null) {
      return null;
    }
    ServiceAccountGetter g = getter.get();
    if (g == null) {
      return Future.failedFuture(new InvalidTokenException("service accounts are not available yet"));
    }
    return g.get(c.namespace(), c.name(), false)
        .compose(found -> found.uid().equals(c.uid()) ? Future.succeededFuture(found)
            : g.get(c.namespace(), c.name(), true))
        .recover(t -> Future.failedFuture(t instanceof InvalidTokenException ? t
            : new InvalidTokenException(String.valueOf(t.getMessage()))))
        .compose(found -> {
          if (found.deleting()) {
            return Future.failedFuture(new InvalidTokenException("service account token has been invalidated"));
          }
          if (!found.uid().equals(c.uid())) {
            return Future.failedFuture(new InvalidTokenException("service account UID (" + found.uid()
                + ") does not match claim (" + c.uid() + ")"));
          }
          Map<String, List<String>> extra = c.id().isEmpty() ? Map.of()
              : Map.of(CREDENTIAL_ID, List.of("JTI=" + c.id()));
          UserInfo user = new UserInfo(c.username(), c.uid(),
              List.of(ALL_GROUP, ALL_GROUP + ":" + c.namespace()), extra);
          return Future.succeededFuture(new Authenticated(user, c.audiences()));
        });
  }

  /** @param token a bearer token @return true when it has the shape of a JWS (three dot-separated parts) */
  public static boolean looksLikeJwt(String token) {
    int first = token.indexOf('.');
    return first > 0 && token.indexOf('.', first + 1) > first + 1 && token.chars().filter(ch -> ch == '.').count() == 2;
  }
}
