package io.mvproxy.node.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fleet handshake over real loopback sockets: both sides, wrong secrets, plain Hazelcast headers, addresses. */
@Tag("unit")
class FleetHandshakeTest {
  @TempDir
  Path dir;

  private ClusterSecret secret(String name) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, ClusterSecret.generate(new SecureRandom()));
    return ClusterSecret.read(p);
  }

  /** Runs {@code acceptor.onAccept} on one accepted connection while {@code client} runs on the connecting side. */
  private static Throwable accept(FleetHandshake acceptor, ThrowingConsumer client, String from) throws Exception {
    try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Throwable> accepted = CompletableFuture.supplyAsync(() -> {
        try (Socket s = server.accept()) {
          acceptor.onAccept(s);
          s.getOutputStream().write("HZC".getBytes(StandardCharsets.US_ASCII));
          return null;
        } catch (IOException e) {
          return e;
        }
      });
      try (Socket c = new Socket()) {
        c.bind(new InetSocketAddress(from, 0));
        c.connect(server.getLocalSocketAddress(), 2_000);
        client.accept(c);
      } catch (IOException e) {
        // the accepting side's verdict is what is checked
      }
      return accepted.get(10, TimeUnit.SECONDS);
    }
  }

  interface ThrowingConsumer {
    void accept(Socket s) throws IOException;
  }

  @Test
  void theSameSecretPassesBothWaysThenHazelcastBytesFlow() throws Exception {
    ClusterSecret k = secret("k");
    FleetHandshake acceptor = new FleetHandshake(k, new MemberAllowlist(List.of("127.0.0.1:5701"), "127.0.0.1"));
    FleetHandshake connector = new FleetHandshake(k, null);
    byte[][] after = new byte[1][];
    assertEquals(null, accept(acceptor, s -> {
      connector.onConnect(s);
      after[0] = s.getInputStream().readNBytes(3);
    }, "127.0.0.1"));
    assertArrayEquals("HZC".getBytes(StandardCharsets.US_ASCII), after[0], "the stream is Hazelcast's afterwards");
  }

  @Test
  void anotherSecretIsRefusedOnBothSides() throws Exception {
    FleetHandshake acceptor = new FleetHandshake(secret("a"), null);
    FleetHandshake connector = new FleetHandshake(secret("b"), null);
    IOException[] connectorSaw = new IOException[1];
    Throwable acceptorSaw = accept(acceptor, s -> {
      try {
        connector.onConnect(s);
      } catch (IOException e) {
        connectorSaw[0] = e;
      }
    }, "127.0.0.1");
    assertTrue(connectorSaw[0] instanceof FleetHandshake.Refused, "the connector checks the acceptor first");
    assertTrue(connectorSaw[0].getMessage().contains("does not hold the fleet secret"), connectorSaw[0].getMessage());
    assertTrue(acceptorSaw instanceof FleetHandshake.Refused && acceptorSaw.getMessage().contains("fleet secret"),
        String.valueOf(acceptorSaw));
  }

  @Test
  void plainHazelcastHeadersAreRefusedAtOnceAndSentNothing() throws Exception {
    FleetHandshake acceptor = new FleetHandshake(secret("a"), null);
    for (String header : List.of("HZC", "CP2")) {
      int[] got = new int[1];
      long t0 = System.nanoTime();
      Throwable refused = accept(acceptor, s -> {
        s.getOutputStream().write(header.getBytes(StandardCharsets.US_ASCII));
        got[0] = s.getInputStream().read();
      }, "127.0.0.1");
      assertTrue(refused.getMessage().contains("plain Hazelcast header " + header), refused.getMessage());
      assertEquals(-1, got[0], "closed without a byte");
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(FleetHandshake.READ_TIMEOUT_MS / 1000),
          "refused at the header, not at the read deadline");
    }
  }

  @Test
  void anAddressOutsideTheMembersIsRefusedBeforeTheHandshake() throws Exception {
    ClusterSecret k = secret("k");
    FleetHandshake acceptor = new FleetHandshake(k, new MemberAllowlist(List.of("127.0.0.1:5701"), "127.0.0.1"));
    FleetHandshake connector = new FleetHandshake(k, null);
    Throwable refused = accept(acceptor, connector::onConnect, "127.0.0.2");
    assertTrue(refused.getMessage().contains("not a --cluster-members address"), String.valueOf(refused));
  }

  @Test
  void allowlistHostsAndNames() {
    assertEquals("10.0.0.1", MemberAllowlist.host("10.0.0.1:5701"));
    assertEquals("node-a", MemberAllowlist.host("node-a"));
    assertEquals("fd00::1", MemberAllowlist.host("[fd00::1]:5701"));
    MemberAllowlist a = new MemberAllowlist(List.of("localhost:5701", "no-such-host.invalid:5701"), "127.0.0.1");
    assertTrue(a.allows(InetAddress.getLoopbackAddress()));
    assertFalse(a.allows(new InetSocketAddress("127.0.0.2", 1).getAddress()));
    assertFalse(a.allows(null));
  }

  /** Rotation: a node whose file lists the new secret first still talks to one that lists it second, and back. */
  @Test
  void aSecondLineIsAcceptedSoTheSecretRotatesWithRollingRestarts() throws Exception {
    String oldKey = ClusterSecret.generate(new SecureRandom());
    String newKey = ClusterSecret.generate(new SecureRandom());
    Files.writeString(dir.resolve("old"), oldKey);
    Files.writeString(dir.resolve("old-new"), oldKey + "\n" + newKey);
    Files.writeString(dir.resolve("new-old"), newKey + oldKey);
    Files.writeString(dir.resolve("new"), newKey);
    List<String> stages = List.of("old", "old-new", "new-old", "new");
    for (int i = 0; i + 1 < stages.size(); i++) {
      for (String[] pair : List.of(new String[] {stages.get(i), stages.get(i + 1)},
          new String[] {stages.get(i + 1), stages.get(i)})) {
        FleetHandshake acceptor = new FleetHandshake(ClusterSecret.read(dir.resolve(pair[0])), null);
        FleetHandshake connector = new FleetHandshake(ClusterSecret.read(dir.resolve(pair[1])), null);
        assertEquals(null, accept(acceptor, connector::onConnect, "127.0.0.1"), pair[0] + " accepts " + pair[1]);
      }
    }
    FleetHandshake acceptor = new FleetHandshake(ClusterSecret.read(dir.resolve("old")), null);
    FleetHandshake connector = new FleetHandshake(ClusterSecret.read(dir.resolve("new")), null);
    assertTrue(accept(acceptor, connector::onConnect, "127.0.0.1") instanceof FleetHandshake.Refused,
        "old alone and new alone do not meet");
  }

  @Test
  void aShortSecretIsRefused() throws Exception {
    Path p = dir.resolve("short");
    Files.writeString(p, "x".repeat(ClusterSecret.MIN_BYTES - 1) + "\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterSecret.read(p));
    assertTrue(e.getMessage().contains("at least 32"), e.getMessage());
    Files.writeString(p, "\n  \n");
    e = assertThrows(IllegalArgumentException.class, () -> ClusterSecret.read(p));
    assertTrue(e.getMessage().contains("holds no secret"), e.getMessage());
  }
}
