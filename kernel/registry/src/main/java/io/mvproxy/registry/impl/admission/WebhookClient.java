package io.mvproxy.registry.impl.admission;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTPS client of the node's webhooks (admission webhooks and CRD conversion webhooks), as apiserver's
 * {@code pkg/util/webhook} {@code ClientManager.HookClient}: a {@code clientConfig} ({@code url}, or {@code service}
 * resolved through {@code --service-resolution}, plus {@code caBundle}) becomes a POST of a JSON review over
 * HTTP/1.1 and TLS 1.2+, the server verified against {@code caBundle} (the JDK's roots without one; the host name
 * checked against the URL's host), no client certificate, within a deadline. One pooled client per CA bundle.
 */
public final class WebhookClient {
  /**
   * The most bytes of a webhook's answer read (10 MiB: an AdmissionReview or ConversionReview holds at most a JSON patch of an object of
   * at most 3 MiB, base64-encoded, and warnings); beyond it the call fails (see {@link #readBounded}).
   */
  public static final long MAX_RESPONSE_BYTES = 10L << 20;

  /**
   * A failed call, its message in Go's words as apiserver's rest client reports it: {@code Post "URL": dial tcp
   * 127.0.0.1:PORT: connect: connection refused}, {@code Post "URL": context deadline exceeded}, {@code the server
   * responded with the status code N but did not return more information}, or a bad {@code clientConfig}.
   */
  /** The webhook answered, but not with something usable (too large); its message is the whole reason. */
  public static final class InvalidResponse extends RuntimeException {
    /** @param message the reason, e.g. {@code received invalid webhook response: response body larger than N bytes} */
    public InvalidResponse(String message) {
      super(message);
    }
  }

  public static final class CallException extends RuntimeException {
    /** @param message the Go-style message */
    public CallException(String message) {
      super(message, null, false, false);
    }
  }

  private final Vertx vertx;
  private final WebhookDispatcher.ServiceResolver services;
  private final Map<String, HttpClient> clients = new ConcurrentHashMap<>();

  /**
   * @param vertx    the node's Vert.x (HTTP clients, timers)
   * @param services resolves {@code clientConfig.service} ({@code --service-resolution})
   */
  public WebhookClient(Vertx vertx, WebhookDispatcher.ServiceResolver services) {
    this.vertx = vertx;
    this.services = services;
  }

  /**
   * @param clientConfig   {@code url} or {@code service} ({@code namespace}, {@code name}, {@code port} default 443,
   *                       {@code path})
   * @param timeoutSeconds the deadline added as upstream's {@code ?timeout=<n>s}
   * @return the URL to POST to
   * @throws IllegalArgumentException when the service has no address in {@code --service-resolution}
   */
  public String url(JsonObject clientConfig, int timeoutSeconds) {
    String base;
    if (clientConfig.getValue("url") instanceof String u && !u.isEmpty()) {
      base = u;
    } else {
      JsonObject svc = clientConfig.getJsonObject("service", new JsonObject());
      String ns = svc.getString("namespace", "");
      String name = svc.getString("name", "");
      int port = svc.getInteger("port", 443);
      String root = services.resolve(ns, name, port).orElseThrow(() -> new IllegalArgumentException("service \""
          + ns + "/" + name + ":" + port + "\" has no address in --service-resolution"));
      String path = svc.getString("path", "");
      base = root.replaceAll("/+$", "") + (path.isEmpty() ? "" : path.startsWith("/") ? path : "/" + path);
    }
    return base + (base.contains("?") ? "&" : "?") + "timeout=" + timeoutSeconds + "s";
  }

  /**
   * POSTs a JSON body and reads the 2xx answer's body.
   *
   * @param clientConfig   where ({@link #url}) and {@code caBundle} (base64 PEM)
   * @param timeoutSeconds deadline of the whole call, seconds (the request is reset after it)
   * @param body           the review to send
   * @return the answer's body; fails with a {@link CallException} (bad client configuration, connection, TLS,
   *     deadline, non-2xx answer)
   */
  public Future<Buffer> post(JsonObject clientConfig, int timeoutSeconds, JsonObject body) {
    String url;
    HttpClient client;
    try {
      url = url(clientConfig, timeoutSeconds);
      client = client(clientConfig.getString("caBundle", ""));
    } catch (RuntimeException e) {
      return Future.failedFuture(new CallException(e.getMessage()));
    }
    Promise<Buffer> done = Promise.promise();
    HttpClientRequest[] sent = new HttpClientRequest[1];
    long timer = vertx.setTimer(timeoutSeconds * 1000L, t -> {
      if (done.tryFail(new CallException("Post \"" + url + "\": context deadline exceeded")) && sent[0] != null) {
        sent[0].reset();
      }
    });
    Buffer payload = body.toBuffer();
    attempt(client, url, payload, sent, done.future(), CLOSED_RETRIES).onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        done.tryComplete(ar.result());
      } else {
        done.tryFail(ar.cause() instanceof CallException || ar.cause() instanceof InvalidResponse ? ar.cause()
            : new CallException("Post \"" + url + "\": " + goError(ar.cause(), url)));
      }
    });
    return done.future();
  }

  /**
   * Times a POST is sent again after its connection closed before any answer: every pooled connection
   * ({@link io.vertx.core.http.PoolOptions#DEFAULT_MAX_POOL_SIZE}) may be one the webhook server closed as it stopped.
   */
  public static final int CLOSED_RETRIES = io.vertx.core.http.PoolOptions.DEFAULT_MAX_POOL_SIZE;

  /**
   * One POST; when the connection closes before any answer came (a pooled keep-alive connection the webhook server
   * closed meanwhile, e.g. as it stopped), it is sent again, on the next pooled connection or a new one, up to
   * {@code retries} times, as Go's transport retries a request whose reused connection the server closed
   * ({@code net/http/transport.go shouldRetryRequest}; Go also drops such connections from its pool as it reads their
   * EOF), so that a webhook that went away reads "connection refused" as with kube-apiserver.
   */
  private Future<Buffer> attempt(HttpClient client, String url, Buffer payload, HttpClientRequest[] sent,
                                 Future<Buffer> call, int retries) {
    boolean[] answered = new boolean[1];
    return client.request(new RequestOptions().setMethod(HttpMethod.POST).setAbsoluteURI(url)
            .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, */*"))
        .compose(req -> {
          sent[0] = req;
          // the body's handlers are set in the send future's own callback, on the request's context, before the
          // response's next event: a callback chained one level further out runs on the outer future's context, a
          // task later, and a short answer can have ended by then (Vert.x: IllegalStateException "checkEnded", which
          // failed webhook calls now and then in full builds)
          return req.send(payload).compose(resp -> {
            answered[0] = true;
            return readBounded(resp, MAX_RESPONSE_BYTES).map(b -> {
              if (resp.statusCode() < 200 || resp.statusCode() > 299) {
                throw new CallException("the server responded with the status code " + resp.statusCode()
                    + " but did not return more information");
              }
              return b;
            });
          });
        })
        .recover(e -> retries > 0 && !answered[0] && !call.isComplete()
            && e instanceof io.vertx.core.http.HttpClosedException
            ? attempt(client, url, payload, sent, call, retries - 1) : Future.failedFuture(e));
  }

  /** A Java I/O failure in Go's words where they are well known (connection refused, unknown authority). */
  static String goError(Throwable t, String url) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null && all.length() < 4096; c = c.getCause() == c ? null : c.getCause()) {
      all.append(c.getMessage()).append('\n');
      if (c instanceof java.net.ConnectException) {
        all.append("Connection refused\n");
      }
    }
    String m = all.toString();
    URI u = URI.create(url);
    String hostPort = u.getHost() + ":" + (u.getPort() < 0 ? 443 : u.getPort());
    if (m.contains("Connection refused")) {
      return "dial tcp " + hostPort + ": connect: connection refused";
    }
    if (m.contains("PKIX") || m.contains("unable to find valid certification path")) {
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    }
    if (m.contains("No subject alternative") || m.contains("doesn't match any of the subject alternative names")) {
      return "tls: failed to verify certificate: x509: certificate is valid for other names, not " + u.getHost();
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }

  /** @return the client verifying servers against {@code caBundle} (base64 PEM; empty: the JDK's roots) */
  private HttpClient client(String caBundle) {
    return clients.computeIfAbsent(caBundle, ca -> {
      HttpClientOptions o = new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1).setUseAlpn(false)
          .setSsl(true).setVerifyHost(true).setKeepAlive(true).setConnectTimeout(10_000)
          .setEnabledSecureTransportProtocols(Set.of("TLSv1.2", "TLSv1.3"));
      if (!ca.isEmpty()) {
        String pem = new String(Base64.getDecoder().decode(ca), StandardCharsets.US_ASCII);
        o.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(pem)));
      }
      return vertx.createHttpClient(io.mvproxy.api.ClientLimits.apply(o));
    });
  }

  /** Closes the pooled HTTP clients (a later call opens new ones). */
  public void close() {
    clients.values().forEach(HttpClient::close);
    clients.clear();
  }

  /**
   * Reads a webhook's answer, at most {@code max} bytes: a larger one (by its {@code Content-Length} or as it
   * streams) fails with {@code received invalid webhook response: response body larger than <max> bytes} and its
   * request is reset, so a broken webhook cannot exhaust the node's memory (the call then follows failurePolicy).
   *
   * @param resp the webhook's response
   * @param max  the most bytes accepted
   * @return the body
   */
  static Future<Buffer> readBounded(io.vertx.core.http.HttpClientResponse resp, long max) {
    return io.mvproxy.security.BoundedBody.read(resp, max,
        m -> new InvalidResponse("received invalid webhook response: " + m));
  }

}
