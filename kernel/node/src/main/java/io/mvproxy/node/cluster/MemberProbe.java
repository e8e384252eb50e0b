package io.mvproxy.node.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Asks a Hazelcast member's port whether a live member is behind it: connects, sends the member protocol header
 * ({@code HZC}, Hazelcast's {@code Protocols.CLUSTER}) and waits for the member to send it back, which a member does
 * as soon as it reads the header (Hazelcast {@code UnifiedProtocolEncoder}); then closes without a handshake (the
 * member drops the connection, logged at INFO). A frozen process accepts the TCP connection in its kernel but never
 * answers; a closed port refuses it.
 */
final class MemberProbe {
  /** Hazelcast's member protocol header. */
  static final byte[] CLUSTER_PROTOCOL = "HZC".getBytes(StandardCharsets.US_ASCII);

  private MemberProbe() {
  }

  /**
   * @param address   the member's Hazelcast address
   * @param timeoutMs connect and answer deadline, each, in milliseconds
   * @return true when the member answered the protocol header in time; false when refused, silent or not Hazelcast
   */
  static boolean answers(InetSocketAddress address, int timeoutMs) {
    return answers(address, timeoutMs, null, null);
  }

  /**
   * @param address   the member's Hazelcast address
   * @param timeoutMs connect and answer deadline, each, in milliseconds
   * @param handshake the fleet handshake to pass first ({@link FleetHandshake#connect}), or null
   * @param localHost the interface to send from (the members' allowlists hold {@code --cluster-host}), or null
   * @return true when the member passed the handshake (if any) and answered the protocol header in time; false when
   *     refused, silent, not Hazelcast or not holding the fleet secret
   */
  static boolean answers(InetSocketAddress address, int timeoutMs, FleetHandshake handshake, String localHost) {
    return answers(address, timeoutMs, timeoutMs, handshake, localHost);
  }

  /**
   * @param address            the member's Hazelcast address
   * @param timeoutMs          connect and protocol-answer deadline, each, in milliseconds
   * @param handshakeTimeoutMs deadline of the handshake's answer, in milliseconds
   * @param handshake          the fleet handshake to pass first ({@link FleetHandshake#connect}), or null
   * @param localHost          the interface to send from, or null
   * @return as {@link #answers(InetSocketAddress, int, FleetHandshake, String)}
   */
  static boolean answers(InetSocketAddress address, int timeoutMs, int handshakeTimeoutMs, FleetHandshake handshake,
                         String localHost) {
    if (address.isUnresolved()) {
      return false;
    }
    try (Socket s = new Socket()) {
      if (localHost != null) {
        s.bind(new InetSocketAddress(localHost, 0));
      }
      s.connect(address, timeoutMs);
      s.setSoTimeout(timeoutMs);
      if (handshake != null) {
        handshake.connect(s, handshakeTimeoutMs);
        s.setSoTimeout(timeoutMs);
      }
      s.getOutputStream().write(CLUSTER_PROTOCOL);
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      byte[] got = in.readNBytes(CLUSTER_PROTOCOL.length);
      return java.util.Arrays.equals(got, CLUSTER_PROTOCOL);
    } catch (IOException e) {
      return false;
    }
  }
}
