package io.mvproxy.node.cluster;

import com.hazelcast.nio.MemberSocketInterceptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Properties;

/**
 * Closes the Hazelcast port to strangers: runs on every member connection, before Hazelcast's own protocol bytes
 * (Hazelcast open source calls a {@link MemberSocketInterceptor} on each accepted and each opened member socket,
 * blocking, off its IO threads: {@code TcpServerAcceptor.newConnection0}, {@code TcpServerConnector.tryToConnect};
 * only the hook that returns one, {@code NodeExtension.getSocketInterceptor}, is Enterprise, and
 * {@link FleetNodeContext} provides it).
 *
 * <p>The accepting member first checks that the connection comes from a {@code --cluster-members} address
 * ({@link MemberAllowlist}), then both sides prove they hold the fleet secret ({@link ClusterSecret}) with fresh
 * nonces, so nothing recorded can be replayed and neither side learns anything it could reuse:
 * <pre>
 *   connector -&gt; acceptor   "MVPF" 0x01, Nc (32 random bytes)
 *   acceptor  -&gt; connector  "MVPF" 0x01, Na (32 random bytes), HMAC(secret, "accept", Nc, Na)
 *   connector -&gt; acceptor   HMAC(secret, "connect", Nc, Na)
 * </pre>
 * The connector speaks first, so a plain Hazelcast member or client (which sends its own protocol header first) is
 * refused at its first bytes and is sent nothing at all. A failure closes the socket (Hazelcast logs the refusal)
 * before any Hazelcast byte is read or sent: a stranger member, and a Hazelcast client, which speaks on the same port,
 * never reach the join or any data. The handshake
 * authenticates the connection's start only: the stream itself is neither encrypted nor integrity-protected (README
 * "Security of the fleet's links").
 */
public final class FleetHandshake implements MemberSocketInterceptor {
  /** First bytes of both greetings: "MVPF" and the handshake version. */
  static final byte[] MAGIC = {'M', 'V', 'P', 'F', 1};
  /** Nonce and MAC size, bytes. */
  static final int NONCE_BYTES = 32;
  /** Longest wait (ms) for each of the peer's messages; the whole handshake is three messages. */
  static final int READ_TIMEOUT_MS = 5_000;
  private static final byte[] CONNECT = "connect".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ACCEPT = "accept".getBytes(StandardCharsets.US_ASCII);

  private final ClusterSecret secret;
  private final MemberAllowlist allowlist;
  private final SecureRandom random = new SecureRandom();

  /**
   * @param secret    the fleet secret
   * @param allowlist where accepted connections may come from, or null for anywhere (the secret alone)
   */
  FleetHandshake(ClusterSecret secret, MemberAllowlist allowlist) {
    this.secret = secret;
    this.allowlist = allowlist;
    // load the MAC and the random generator now, not during the first handshakes (seconds on a loaded machine,
    // longer than a discovery probe waits)
    secret.mac(nonce());
  }

  /** Hazelcast's configuration hook: nothing to read (the handshake is configured in code). */
  @Override
  public void init(Properties properties) {
  }

  /**
   * The accepting side.
   *
   * @param socket a connection accepted on the Hazelcast port, blocking
   * @throws IOException ({@link Refused}) when the peer's address is not a member's or it does not prove the secret;
   *     Hazelcast then closes the socket
   */
  @Override
  public void onAccept(Socket socket) throws IOException {
    if (allowlist != null && !allowlist.allows(socket.getInetAddress())) {
      throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
          + ": not a --cluster-members address");
    }
    int before = socket.getSoTimeout();
    socket.setSoTimeout(READ_TIMEOUT_MS);
    try {
      InputStream in = socket.getInputStream();
      // a plain Hazelcast member or client sends its 3-byte protocol header ("HZC", "CP2"): refused at once, and
      // nothing is ever sent to it
      byte[] magic = in.readNBytes(3);
      if (magic.length == 3 && Arrays.equals(magic, Arrays.copyOf(MAGIC, 3))) {
        magic = concat(magic, in.readNBytes(MAGIC.length - 3));
      }
      if (!Arrays.equals(magic, MAGIC)) {
        throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
            + ": no fleet handshake (" + (magic.length == 3 ? "it sent the plain Hazelcast header "
            + new String(magic, StandardCharsets.ISO_8859_1) + ": " : "")
            + "a member without --cluster-secret-file, or not a fleet member)");
      }
      byte[] nc = in.readNBytes(NONCE_BYTES);
      if (nc.length < NONCE_BYTES) {
        throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
            + ": it closed the fleet handshake");
      }
      byte[] na = nonce();
      OutputStream out = socket.getOutputStream();
      out.write(concat(MAGIC, na, secret.mac(ACCEPT, nc, na)));
      out.flush();
      byte[] mac = in.readNBytes(NONCE_BYTES);
      if (mac.length < NONCE_BYTES) {
        throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
            + ": it closed the fleet handshake before proving the fleet secret (gave up waiting, or does not hold it)");
      }
      if (!secret.verifies(mac, CONNECT, nc, na)) {
        throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
            + ": it does not hold the fleet secret (--cluster-secret-file)");
      }
    } catch (java.net.SocketTimeoutException e) {
      throw new Refused("refused Hazelcast connection from " + socket.getRemoteSocketAddress()
          + ": no fleet handshake within " + READ_TIMEOUT_MS + " ms");
    } finally {
      socket.setSoTimeout(before);
    }
  }

  /**
   * The connecting side (Hazelcast's connections to other members).
   *
   * @param socket a connection just opened to a member's Hazelcast port, blocking
   * @throws IOException ({@link Refused}) when the other side does not prove it holds the secret or does not answer
   */
  @Override
  public void onConnect(Socket socket) throws IOException {
    connect(socket, READ_TIMEOUT_MS);
  }

  /**
   * {@link #onConnect} with another deadline ({@link MemberProbe}: a frozen member must not hold a probe 5 s).
   *
   * @param socket    a connection just opened to a member's Hazelcast port, blocking
   * @param timeoutMs longest wait for the other side's answer, ms
   * @throws IOException ({@link Refused}) when the other side does not prove it holds the secret or does not answer
   */
  void connect(Socket socket, int timeoutMs) throws IOException {
    int before = socket.getSoTimeout();
    socket.setSoTimeout(timeoutMs);
    try {
      byte[] nc = nonce();
      OutputStream out = socket.getOutputStream();
      out.write(concat(MAGIC, nc));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] magic = in.readNBytes(MAGIC.length);
      byte[] na = in.readNBytes(NONCE_BYTES);
      byte[] mac = in.readNBytes(NONCE_BYTES);
      if (!Arrays.equals(magic, MAGIC) || mac.length < NONCE_BYTES) {
        throw new Refused("Hazelcast member " + socket.getRemoteSocketAddress() + " closed the fleet handshake "
            + "(it refused this node's address or runs without --cluster-secret-file)");
      }
      if (!secret.verifies(mac, ACCEPT, nc, na)) {
        throw new Refused("Hazelcast member " + socket.getRemoteSocketAddress() + " does not hold the fleet secret "
            + "(--cluster-secret-file)");
      }
      out.write(secret.mac(CONNECT, nc, na));
      out.flush();
    } catch (java.net.SocketTimeoutException e) {
      throw new Refused("Hazelcast member " + socket.getRemoteSocketAddress() + " did not answer the fleet "
          + "handshake within " + timeoutMs + " ms (no --cluster-secret-file there?)");
    } finally {
      socket.setSoTimeout(before);
    }
  }

  private byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    random.nextBytes(n);
    return n;
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /** A refused or failed handshake: one log line, no stack trace (Hazelcast logs it with the exception). */
  static final class Refused extends IOException {
    Refused(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  }
}
