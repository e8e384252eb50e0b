package io.mvproxy.security.serviceaccount;

import java.time.Instant;
import java.util.List;

/**
 * What a service account token says ({@code pkg/serviceaccount/claims.go}): {@code sub}
 * {@code system:serviceaccount:<namespace>:<name>}, {@code aud}, {@code iat}/{@code nbf}/{@code exp}, {@code jti}
 * and the private claim {@code kubernetes.io {namespace, serviceaccount {name, uid}}}.
 *
 * @param namespace the service account's namespace
 * @param name      its name
 * @param uid       its uid (a token outlives neither the object nor a re-creation under the same name)
 * @param audiences {@code aud}
 * @param issuedAt  {@code iat} and {@code nbf}
 * @param expiry    {@code exp}
 * @param id        {@code jti} (the credential ID)
 */
public record ServiceAccountClaims(String namespace, String name, String uid, List<String> audiences,
                                   Instant issuedAt, Instant expiry, String id) {
  /** Copies the audiences. */
  public ServiceAccountClaims {
    audiences = List.copyOf(audiences);
  }

  /** @return {@code system:serviceaccount:<namespace>:<name>} ({@code serviceaccount.MakeUsername}) */
  public String username() {
    return "system:serviceaccount:" + namespace + ":" + name;
  }
}
