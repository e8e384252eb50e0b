package io.mvproxy.example.wardle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.security.DevPki;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The sample API server over real HTTPS on 127.0.0.1. */
@ExtendWith(VertxExtension.class)
@Tag("unit")
class SampleApiServerTest {
  private static final String V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  private static final String V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
  private static final String FLUNDERS = "/apis/wardle.example.com/v1alpha1/namespaces/ns1/flunders";

  @TempDir
  static Path pki;
  Vertx vertx;
  int port;
  HttpClient proxyClient;
  HttpClient adminClient;
  HttpClient anonymous;

  record Resp(int status, MultiMap headers, Buffer body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  @BeforeAll
  static void certs() throws Exception {
    new DevPki(pki).generate(List.of("backend"), List.of(), Map.of());
  }

  @BeforeEach
  void start(Vertx vertx) throws Exception {
    this.vertx = vertx;
    port = start(false).actualPort();
    proxyClient = client("backend-proxy-client");
    adminClient = client("admin");
    anonymous = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false).setKeepAlive(false));
  }

  private HttpServer start(boolean legacyOnly) throws Exception {
    return SampleApiServer.start(vertx, new SampleApiServerOptions(0, "127.0.0.1",
        pki.resolve("backend.crt").toString(), pki.resolve("backend.key").toString(),
        pki.resolve("front-proxy-ca.crt").toString(), legacyOnly)).await(30, TimeUnit.SECONDS);
  }

  private HttpClient client(String name) {
    return vertx.createHttpClient(new HttpClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false).setKeepAlive(false)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.resolve(name + ".crt").toString())
            .setKeyPath(pki.resolve(name + ".key").toString())));
  }

  private Resp call(HttpClient c, HttpMethod m, String uri, Map<String, String> headers, String body)
      throws Exception {
    RequestOptions o = new RequestOptions().setMethod(m).setHost("127.0.0.1").setPort(port).setURI(uri);
    headers.forEach(o::putHeader);
    // the body is read in the send future's own callback (chained further out it may run after the answer ended)
    return c.request(o).compose(r -> (body == null ? r.send() : r.send(body))
        .compose(x -> x.body().map(b -> new Resp(x.statusCode(), x.headers(), b)))).await(30, TimeUnit.SECONDS);
  }

  private Resp apis(String accept) throws Exception {
    return call(anonymous, HttpMethod.GET, "/apis", accept == null ? Map.of() : Map.of("Accept", accept), null);
  }

  @Test
  void aggregatedDiscoveryNegotiation() throws Exception {
    Resp v2 = apis(V2 + "," + V2BETA1 + ",application/json");
    assertEquals(200, v2.status());
    assertEquals(V2, v2.headers().get("Content-Type"));
    assertEquals("apidiscovery.k8s.io/v2", v2.json().getString("apiVersion"));
    JsonObject res = v2.json().getJsonArray("items").getJsonObject(0).getJsonArray("versions").getJsonObject(0)
        .getJsonArray("resources").getJsonObject(0);
    assertEquals("flunders", res.getString("resource"));
    assertEquals("Flunder", res.getJsonObject("responseKind").getString("kind"));
    assertEquals("Accept", v2.headers().get("Vary"));

    Resp beta = apis(V2BETA1 + ",application/json");
    assertEquals(V2BETA1, beta.headers().get("Content-Type"), "never v2 to a client asking only v2beta1");
    assertEquals("apidiscovery.k8s.io/v2beta1", beta.json().getString("apiVersion"));
    assertTrue(!beta.headers().get("ETag").equals(v2.headers().get("ETag")));

    Resp reordered = apis("application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io");
    assertEquals(V2, reordered.headers().get("Content-Type"));
    Resp q = apis(V2 + ";q=0.5," + V2BETA1 + ";q=0.9");
    assertEquals(V2BETA1, q.headers().get("Content-Type"));

    for (String legacy : new String[] {null, "application/json, */*", "application/json"}) {
      Resp r = apis(legacy);
      assertEquals("application/json", r.headers().get("Content-Type"), String.valueOf(legacy));
      assertEquals("APIGroupList", r.json().getString("kind"));
      assertEquals("wardle.example.com/v1alpha1", r.json().getJsonArray("groups").getJsonObject(0)
          .getJsonObject("preferredVersion").getString("groupVersion"));
    }
    Resp yaml = apis("application/yaml");
    assertEquals(406, yaml.status());
    assertEquals("NotAcceptable", yaml.json().getString("reason"));

    Resp notModified = call(anonymous, HttpMethod.GET, "/apis", Map.of("Accept", V2, "If-None-Match",
        v2.headers().get("ETag")), null);
    assertEquals(304, notModified.status());
    assertEquals(0, notModified.body().length());
  }

  @Test
  void legacyDiscoveryDocuments() throws Exception {
    Resp list = call(anonymous, HttpMethod.GET, "/apis/wardle.example.com/v1alpha1", Map.of(), null);
    assertEquals(200, list.status());
    JsonObject r = list.json().getJsonArray("resources").getJsonObject(0);
    assertEquals("APIResourceList", list.json().getString("kind"));
    assertEquals("flunders", r.getString("name"));
    assertEquals(true, r.getBoolean("namespaced"));
    assertEquals(12, r.getString("storageVersionHash").length());
    Resp group = call(anonymous, HttpMethod.GET, "/apis/wardle.example.com", Map.of(), null);
    assertEquals("APIGroup", group.json().getString("kind"));

    port = start(true).actualPort();
    Resp legacy = apis(V2 + ",application/json");
    assertEquals("application/json", legacy.headers().get("Content-Type"));
    assertEquals("APIGroupList", legacy.json().getString("kind"));
  }

  @Test
  void crudRecordsTheFrontProxyIdentity() throws Exception {
    Map<String, String> as = Map.of("X-Remote-User", "alice", "X-Remote-Group", "dev",
        "Content-Type", "application/json");
    Resp created = call(proxyClient, HttpMethod.POST, FLUNDERS, as,
        "{\"apiVersion\":\"wardle.example.com/v1alpha1\",\"kind\":\"Flunder\",\"metadata\":{\"name\":\"f1\"},"
            + "\"spec\":{\"reference\":\"x\"}}");
    assertEquals(201, created.status(), created.body().toString());
    JsonObject meta = created.json().getJsonObject("metadata");
    assertEquals("alice", meta.getJsonObject("annotations").getString(WardleApi.CREATED_BY));
    assertEquals("dev", meta.getJsonObject("annotations").getString(WardleApi.CREATED_BY_GROUPS));
    assertEquals("ns1", meta.getString("namespace"));
    assertTrue(meta.containsKey("uid") && meta.containsKey("resourceVersion") && meta.containsKey("creationTimestamp"));

    Resp again = call(proxyClient, HttpMethod.POST, FLUNDERS, as, "{\"metadata\":{\"name\":\"f1\"}}");
    assertEquals(409, again.status());
    assertEquals("AlreadyExists", again.json().getString("reason"));
    Resp bad = call(proxyClient, HttpMethod.POST, FLUNDERS, as, "{\"metadata\":{\"name\":\"Not_Valid\"}}");
    assertEquals(422, bad.status());
    assertEquals("metadata.name", bad.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0)
        .getString("field"));
    Resp gen = call(proxyClient, HttpMethod.POST, FLUNDERS, as, "{\"metadata\":{\"generateName\":\"g-\"}}");
    assertEquals(201, gen.status());
    assertTrue(gen.json().getJsonObject("metadata").getString("name").startsWith("g-"));

    Resp get = call(proxyClient, HttpMethod.GET, FLUNDERS + "/f1", as, null);
    assertEquals(200, get.status());
    assertEquals("x", get.json().getJsonObject("spec").getString("reference"));
    Resp list = call(proxyClient, HttpMethod.GET, FLUNDERS, as, null);
    assertEquals("FlunderList", list.json().getString("kind"));
    assertEquals(2, list.json().getJsonArray("items").size());
    Resp all = call(proxyClient, HttpMethod.GET, "/apis/wardle.example.com/v1alpha1/flunders", as, null);
    assertEquals(2, all.json().getJsonArray("items").size());
    Resp other = call(proxyClient, HttpMethod.GET, "/apis/wardle.example.com/v1alpha1/namespaces/ns2/flunders",
        as, null);
    assertEquals(0, other.json().getJsonArray("items").size());

    Resp del = call(proxyClient, HttpMethod.DELETE, FLUNDERS + "/f1", as, null);
    assertEquals(200, del.status());
    assertEquals("Success", del.json().getString("status"));
    Resp gone = call(proxyClient, HttpMethod.GET, FLUNDERS + "/f1", as, null);
    assertEquals(404, gone.status());
    assertEquals("flunders.wardle.example.com \"f1\" not found", gone.json().getString("message"));
    Resp put = call(proxyClient, HttpMethod.PUT, FLUNDERS + "/f1", as, "{}");
    assertEquals(405, put.status());
  }

  @Test
  void identityHeadersNeedAFrontProxyCertificate() throws Exception {
    Map<String, String> spoof = Map.of("X-Remote-User", "mallory", "X-Remote-Group", "system:masters");
    assertEquals(401, call(anonymous, HttpMethod.GET, FLUNDERS, spoof, null).status());
    assertEquals(401, call(adminClient, HttpMethod.GET, FLUNDERS, spoof, null).status(),
        "a certificate from another CA is not a front proxy");
    assertEquals(401, call(proxyClient, HttpMethod.GET, FLUNDERS, Map.of(), null).status(),
        "a front proxy must name the user");
    assertEquals(200, apis(null).status(), "discovery is open");
    assertEquals(200, call(anonymous, HttpMethod.GET, "/healthz", Map.of(), null).status());
  }

  @Test
  void watchStreamsEvents() throws Exception {
    Map<String, String> as = Map.of("X-Remote-User", "alice");
    call(proxyClient, HttpMethod.POST, FLUNDERS, as, "{\"metadata\":{\"name\":\"before\"}}");
    LinkedBlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
    StringBuilder pending = new StringBuilder();
    RequestOptions o = new RequestOptions().setHost("127.0.0.1").setPort(port).setURI(FLUNDERS + "?watch=true")
        .putHeader("X-Remote-User", "alice");
    io.vertx.core.Promise<io.vertx.core.http.HttpClientResponse> head = io.vertx.core.Promise.promise();
    vertx.getOrCreateContext().runOnContext(v -> proxyClient.request(o).onSuccess(req -> {
      req.response().onSuccess(r -> r.handler(b -> {
        pending.append(b.toString());
        int nl;
        while ((nl = pending.indexOf("\n")) >= 0) {
          events.add(new JsonObject(pending.substring(0, nl)));
          pending.delete(0, nl + 1);
        }
      })).onComplete(head);
      req.end();
    }).onFailure(head::fail));
    var resp = head.future().await(30, TimeUnit.SECONDS);
    assertEquals(200, resp.statusCode());
    assertEquals("chunked", resp.getHeader("Transfer-Encoding"));
    JsonObject first = events.poll(30, TimeUnit.SECONDS);
    assertEquals("ADDED", first.getString("type"));
    assertEquals("before", first.getJsonObject("object").getJsonObject("metadata").getString("name"));
    call(proxyClient, HttpMethod.POST, FLUNDERS, as, "{\"metadata\":{\"name\":\"after\"}}");
    JsonObject added = events.poll(30, TimeUnit.SECONDS);
    assertEquals("after", added.getJsonObject("object").getJsonObject("metadata").getString("name"));
    call(proxyClient, HttpMethod.DELETE, FLUNDERS + "/after", as, null);
    assertEquals("DELETED", events.poll(30, TimeUnit.SECONDS).getString("type"));
    assertNull(events.poll(200, TimeUnit.MILLISECONDS));
    resp.request().reset();
  }

  @Test
  void optionsParsing() {
    SampleApiServerOptions o = SampleApiServerOptions.parse(new String[] {"--secure-port", "9443",
        "--bind-address=127.0.0.1", "--tls-cert-file", "a.crt", "--tls-private-key-file=a.key",
        "--requestheader-client-ca-file", "fp.crt", "--legacy-discovery-only"});
    assertEquals(new SampleApiServerOptions(9443, "127.0.0.1", "a.crt", "a.key", "fp.crt", true), o);
    SampleApiServerOptions d = SampleApiServerOptions.parse(new String[] {"--tls-cert-file=a", "--tls-private-key-file=b"});
    assertEquals(8443, d.securePort());
    assertEquals("0.0.0.0", d.bindAddress());
    assertNull(d.requestheaderClientCaFile());
    assertThrows(IllegalArgumentException.class, () -> SampleApiServerOptions.parse(new String[] {"--nope=1"}));
    assertThrows(IllegalArgumentException.class, () -> SampleApiServerOptions.parse(new String[] {"--secure-port=x",
        "--tls-cert-file=a", "--tls-private-key-file=b"}));
    assertThrows(IllegalArgumentException.class, () -> SampleApiServerOptions.parse(new String[0]));
  }

  @Test
  void negotiationUnit() {
    assertEquals("v2", DiscoveryNegotiation.negotiate(V2 + ";profile=nopeer," + V2BETA1));
    assertEquals("legacy", DiscoveryNegotiation.negotiate("*/*"));
    assertEquals("v2beta1", DiscoveryNegotiation.negotiate("application/json;g=other;v=v1;as=X," + V2BETA1));
    assertNull(DiscoveryNegotiation.negotiate("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList"));
  }
}
