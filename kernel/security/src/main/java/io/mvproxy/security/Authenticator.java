package io.mvproxy.security;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.UserInfo;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Authentication filter for the ingress router, the union of kube-apiserver's authenticators in this order:
 * <ol>
 *   <li>front proxy / peer hop ({@code headerrequest/requestheader.go}): the client chain verifies against
 *   {@code --requestheader-client-ca-file}, its CN is in {@code --requestheader-allowed-names} (empty = any) and
 *   {@code X-Remote-User} is set: the identity comes from the {@code X-Remote-*} headers (which are then removed);
 *   its {@link io.mvproxy.api.RequestScope} gets {@code peerHop}, and {@code peerProxied} when
 *   {@code X-Kubernetes-Peer-Proxied: true} was sent;</li>
 *   <li>otherwise every {@code X-Remote-*} and {@code X-Kubernetes-Peer-Proxied} header is stripped, then: client
 *   chain verifies against {@code --client-ca-file} ({@code request/x509/x509.go}): user = CN, groups = O values;
 *   else {@code Authorization: Bearer} token in {@code --token-auth-file} ({@code request/bearertoken}; the header is
 *   removed on success), else a service account token ({@link ServiceAccountTokens}: a signed JWT of one of
 *   {@code --service-account-issuer}, checked against its ServiceAccount without blocking; the request is paused
 *   meanwhile).</li>
 * </ol>
 * Authenticated users get {@code system:authenticated} (upstream {@code AuthenticatedGroupAdder}; token-file users
 * once when the authenticator is built, client-certificate users once per TLS session) and are stored under
 * {@link io.mvproxy.api.RequestScope#user()} before {@code ctx.next()}. Failures get 401 with a {@code Status} body, except on
 * {@code /healthz}, {@code /livez}, {@code /readyz}, {@code /version} and their sub-paths, which continue as
 * {@code system:anonymous}. Client chains are verified once per TLS session (PKIX, no revocation, leaf EKU must allow
 * clientAuth) and the verdict is cached on the {@link SSLSession}. Thread-safe; holds only immutable configuration.
 */
public final class Authenticator implements Handler<RoutingContext> {
  /** Group added to every authenticated user. */
  public static final String AUTHENTICATED_GROUP = "system:authenticated";
  /** Identity given to unauthenticated requests on the public health and version paths. */
  public static final UserInfo ANONYMOUS = new UserInfo("system:anonymous", "", List.of("system:unauthenticated"),
      Map.of());

  private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Authenticator.class.getName());
  private static final List<String> PUBLIC_PATHS = List.of("/healthz", "/livez", "/readyz", "/version");

  private final ChainVerifier clientCa;
  private final ChainVerifier requestHeaderCa;
  private final Set<String> allowedNames;
  /** Token to user, each user already with {@value #AUTHENTICATED_GROUP} (built once, when the file is loaded). */
  private final Map<String, UserInfo> tokens;
  private final ServiceAccountTokens serviceAccounts;
  private final String sessionKey = "io.mvproxy.security.Authenticator." + UUID.randomUUID();

  /**
   * @param clientCas                 CAs of {@code --client-ca-file}; empty disables client-certificate users
   * @param requestHeaderCas          CAs of {@code --requestheader-client-ca-file}; empty disables peer hops
   * @param requestHeaderAllowedNames {@code --requestheader-allowed-names}; empty allows any CN of those CAs
   * @param tokens                    token to user, from {@link TokenFile}; empty disables bearer tokens
   */
  public Authenticator(List<X509Certificate> clientCas, List<X509Certificate> requestHeaderCas,
                       List<String> requestHeaderAllowedNames, Map<String, UserInfo> tokens) {
    this.clientCa = clientCas.isEmpty() ? null : new ChainVerifier(clientCas);
    this.requestHeaderCa = requestHeaderCas.isEmpty() ? null : new ChainVerifier(requestHeaderCas);
    this.allowedNames = Set.copyOf(requestHeaderAllowedNames);
    this.tokens = withAuthenticatedGroup(tokens);
    this.serviceAccounts = null;
  }

  private Authenticator(Authenticator base, Map<String, UserInfo> tokens, ServiceAccountTokens serviceAccounts) {
    this.clientCa = base.clientCa;
    this.requestHeaderCa = base.requestHeaderCa;
    this.allowedNames = base.allowedNames;
    this.tokens = withAuthenticatedGroup(tokens);
    this.serviceAccounts = serviceAccounts;
  }

  /**
   * The same authenticator also accepting service account tokens.
   *
   * @param serviceAccounts the node's service account tokens, or null for none
   * @return a new authenticator
   */
  public Authenticator withServiceAccounts(ServiceAccountTokens serviceAccounts) {
    return new Authenticator(this, tokens, serviceAccounts);
  }

  /**
   * The same authenticator accepting more bearer tokens: the node's own controller identities (its controller
   * manager's loopback clients, as kube-apiserver's loopback token).
   *
   * @param extra token to user; a token already in {@code --token-auth-file} keeps its file user
   * @return a new authenticator
   */
  public Authenticator withTokens(Map<String, UserInfo> extra) {
    Map<String, UserInfo> all = new java.util.HashMap<>(extra);
    all.putAll(tokens);
    return new Authenticator(this, all, serviceAccounts);
  }

  /**
   * Builds an authenticator from kube-apiserver flag values.
   *
   * @param clientCaFile              {@code --client-ca-file}, or null
   * @param requestheaderClientCaFile {@code --requestheader-client-ca-file}, or null
   * @param requestheaderAllowedNames {@code --requestheader-allowed-names}, or null/empty for any
   * @param tokenAuthFile             {@code --token-auth-file}, or null
   * @return the authenticator
   * @throws IllegalArgumentException naming the flag when a file is missing, unreadable or invalid
   */
  public static Authenticator fromFlags(String clientCaFile, String requestheaderClientCaFile,
                                        List<String> requestheaderAllowedNames, String tokenAuthFile) {
    return new Authenticator(
        clientCaFile == null ? List.of() : Pem.readCertificates(Path.of(clientCaFile), "--client-ca-file"),
        requestheaderClientCaFile == null ? List.of()
            : Pem.readCertificates(Path.of(requestheaderClientCaFile), "--requestheader-client-ca-file"),
        requestheaderAllowedNames == null ? List.of() : requestheaderAllowedNames,
        tokenAuthFile == null ? Map.of() : TokenFile.load(Path.of(tokenAuthFile)));
  }

  /**
   * Authenticates the request; continues with {@code ctx.next()} or ends it with 401.
   *
   * @param ctx the routing context
   */
  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest req = ctx.request();
    MultiMap headers = req.headers();
    Verdict verdict = verdict(req);
    if (verdict.frontProxy()) {
      // one pass: the identity read and every X-Remote-* header removed, whether or not a user was sent
      UserInfo remote = FrontProxyHeaders.take(headers);
      if (remote != null) {
        boolean proxied = "true".equalsIgnoreCase(headers.get(FrontProxyHeaders.PEER_PROXIED));
        io.mvproxy.api.RequestScope.of(ctx).peerHop(true).peerProxied(proxied);
        accept(ctx, withAuthenticatedGroup(remote));
        return;
      }
    } else {
      FrontProxyHeaders.removeIdentity(headers);
    }
    headers.remove(FrontProxyHeaders.PEER_PROXIED);
    if (verdict.certUser() != null) {
      accept(ctx, verdict.certUser());
      return;
    }
    String token = bearer(headers.get(HttpHeaders.AUTHORIZATION));
    UserInfo tokenUser = token == null ? null : tokens.get(token);
    if (tokenUser != null) {
      headers.remove(HttpHeaders.AUTHORIZATION);
      accept(ctx, tokenUser);
      return;
    }
    Future<ServiceAccountTokens.Authenticated> sa = token == null || serviceAccounts == null
        || !ServiceAccountTokens.looksLikeJwt(token) ? null : serviceAccounts.authenticate(token, null);
    if (sa != null) {
      serviceAccount(ctx, sa);
      return;
    }
    unauthenticated(ctx);
  }

  /** Accepts the service account or answers 401, back on the request's context (the request paused meanwhile). */
  private void serviceAccount(RoutingContext ctx, Future<ServiceAccountTokens.Authenticated> sa) {
    HttpServerRequest req = ctx.request();
    if (sa.isComplete()) {
      serviceAccountDone(ctx, sa);
      return;
    }
    Context here = ctx.vertx().getOrCreateContext();
    req.pause();
    sa.onComplete(ar -> here.runOnContext(v -> {
      req.resume();
      serviceAccountDone(ctx, sa);
    }));
  }

  private void serviceAccountDone(RoutingContext ctx, Future<ServiceAccountTokens.Authenticated> sa) {
    if (sa.succeeded()) {
      ctx.request().headers().remove(HttpHeaders.AUTHORIZATION);
      accept(ctx, withAuthenticatedGroup(sa.result().user()));
    } else {
      LOG.fine(() -> "service account token rejected: " + sa.cause().getMessage());
      unauthenticated(ctx);
    }
  }

  private static void unauthenticated(RoutingContext ctx) {
    if (isPublicPath(ctx.normalizedPath())) {
      io.mvproxy.api.RequestScope.of(ctx).user(ANONYMOUS);
      ctx.next();
      return;
    }
    io.mvproxy.api.StatusWriter.send(ctx, new StatusException(StatusReason.Unauthorized, "Unauthorized", null));
  }

  /**
   * Authenticates a bearer token against {@code --token-auth-file} (TokenReview).
   *
   * @param token the token
   * @return the user with {@value #AUTHENTICATED_GROUP}, or empty when unknown
   */
  public java.util.Optional<UserInfo> authenticateToken(String token) {
    UserInfo u = token == null ? null : tokens.get(token);
    return java.util.Optional.ofNullable(u);
  }

  /**
   * A TokenReview's verdict ({@code tokenreview/storage.go}).
   *
   * @param user      the user with {@value #AUTHENTICATED_GROUP}, or null when not authenticated
   * @param audiences the audiences the token is valid for among those requested (empty when none were)
   * @param error     why the token was refused ({@code status.error}), or null
   */
  public record Review(UserInfo user, java.util.List<String> audiences, String error) {
  }

  /**
   * Reviews a token against {@code --token-auth-file} and the service account tokens.
   *
   * @param token     the token
   * @param audiences the requested audiences (empty: the API audiences)
   * @return the verdict; never fails
   */
  public Future<Review> review(String token, java.util.List<String> audiences) {
    java.util.Optional<UserInfo> file = authenticateToken(token);
    if (file.isPresent()) {
      return Future.succeededFuture(new Review(file.get(), audiences, null));
    }
    Future<ServiceAccountTokens.Authenticated> sa = serviceAccounts == null || !ServiceAccountTokens.looksLikeJwt(token)
        ? null : serviceAccounts.authenticate(token, audiences);
    if (sa == null) {
      return Future.succeededFuture(new Review(null, java.util.List.of(), null));
    }
    return sa.map(a -> new Review(withAuthenticatedGroup(a.user()), a.audiences(), null))
        .otherwise(t -> new Review(null, java.util.List.of(), t.getMessage()));
  }

  /**
   * Tells whether a path is served to unauthenticated callers.
   *
   * @param path the normalized request path
   * @return true for {@code /healthz}, {@code /livez}, {@code /readyz}, {@code /version} and their sub-paths
   */
  public static boolean isPublicPath(String path) {
    if (path == null) {
      return false;
    }
    for (String p : PUBLIC_PATHS) {
      if (path.equals(p) || path.startsWith(p + "/")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns {@code user} with {@value #AUTHENTICATED_GROUP} appended unless it already has it or
   * {@code system:unauthenticated} (upstream {@code group/authenticated_group_adder.go}).
   *
   * @param user the user
   * @return the user with the group
   */
  public static UserInfo withAuthenticatedGroup(UserInfo user) {
    if (user.groups().contains(AUTHENTICATED_GROUP) || user.groups().contains("system:unauthenticated")) {
      return user;
    }
    List<String> groups = new ArrayList<>(user.groups());
    groups.add(AUTHENTICATED_GROUP);
    return new UserInfo(user.name(), user.uid(), groups, user.extra());
  }

  /** The token users with {@value #AUTHENTICATED_GROUP}, as an immutable map. */
  private static Map<String, UserInfo> withAuthenticatedGroup(Map<String, UserInfo> tokens) {
    Map<String, UserInfo> out = new java.util.HashMap<>();
    tokens.forEach((t, u) -> out.put(t, withAuthenticatedGroup(u)));
    return Map.copyOf(out);
  }

  /** Stores {@code user}, which already has {@value #AUTHENTICATED_GROUP}, and continues. */
  private static void accept(RoutingContext ctx, UserInfo user) {
    io.mvproxy.api.RequestScope.of(ctx).user(user);
    ctx.next();
  }

  /**
   * The token of an {@code Authorization: Bearer <token>} value, as upstream {@code bearertoken.go}: the value
   * stripped of surrounding white space, split at single spaces into at most three parts; the first must be
   * {@code bearer} (any case) and the second, the token, not empty (a third part is ignored).
   *
   * @param auth the {@code Authorization} value, or null
   * @return the token, or null
   */
  static String bearer(String auth) {
    if (auth == null) {
      return null;
    }
    int start = 0;
    int end = auth.length();
    while (start < end && Character.isWhitespace(auth.charAt(start))) {
      start++;
    }
    while (end > start && Character.isWhitespace(auth.charAt(end - 1))) {
      end--;
    }
    int scheme = "bearer".length();
    if (end - start < scheme + 2 || auth.charAt(start + scheme) != ' '
        || !auth.regionMatches(true, start, "bearer", 0, scheme)) {
      return null;
    }
    int from = start + scheme + 1;
    int to = auth.indexOf(' ', from);
    if (to < 0 || to > end) {
      to = end;
    }
    return to == from ? null : auth.substring(from, to);
  }

  /** Result of verifying one TLS session's client chain; the certificate user already has the group. */
  private record Verdict(boolean frontProxy, UserInfo certUser) {
    static final Verdict NONE = new Verdict(false, null);
  }

  private Verdict verdict(HttpServerRequest req) {
    SSLSession session = req.sslSession();
    if (session == null || (clientCa == null && requestHeaderCa == null)) {
      return Verdict.NONE;
    }
    if (session.getValue(sessionKey) instanceof Verdict cached) {
      return cached;
    }
    Verdict v = compute(session);
    session.putValue(sessionKey, v);
    return v;
  }

  private Verdict compute(SSLSession session) {
    List<X509Certificate> chain = new ArrayList<>();
    try {
      for (Certificate c : session.getPeerCertificates()) {
        if (!(c instanceof X509Certificate x)) {
          return Verdict.NONE;
        }
        chain.add(x);
      }
    } catch (SSLPeerUnverifiedException e) {
      return Verdict.NONE; // no client certificate
    }
    if (chain.isEmpty()) {
      return Verdict.NONE;
    }
    X509Certificate leaf = chain.get(0);
    boolean frontProxy = requestHeaderCa != null && requestHeaderCa.verifies(chain)
        && (allowedNames.isEmpty() || allowedNames.contains(Pem.commonName(leaf)));
    UserInfo certUser = null;
    if (clientCa != null && clientCa.verifies(chain)) {
      String cn = Pem.commonName(leaf);
      if (!cn.isEmpty()) {
        certUser = withAuthenticatedGroup(new UserInfo(cn, "", Pem.organizations(leaf), Map.of()));
      }
    }
    return new Verdict(frontProxy, certUser);
  }
}
