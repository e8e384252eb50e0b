package io.mvproxy.node.controllers;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import org.bouncycastle.util.encoders.Base32;

/**
 * The apiserver identity of a node and its Lease, as kube-apiserver's ({@code staging/src/k8s.io/apiserver/pkg/
 * server/config.go} {@code APIServerID}, {@code pkg/controlplane/apiserver/server.go}): the Lease
 * {@code kube-system/apiserver-<hash>}, where the hash is the lower-case, unpadded base32 of the first 16 bytes of
 * the SHA-256 of the length-prefixed (two bytes, big-endian) host and the length-prefixed {@code kube-apiserver}.
 * Upstream hashes the host name, one kube-apiserver per host; several mvproxy nodes often share a host, so the
 * node's server ID (unique in the fleet, {@code mvproxy-<host>-<port>} by default) is hashed instead.
 */
public final class ApiserverIdentity {
  /** Namespace of the identity Leases. */
  public static final String NAMESPACE = "kube-system";
  /** Label marking an identity Lease, with the component as value (upstream's IdentityLeaseComponentLabelKey). */
  public static final String IDENTITY_LABEL = "apiserver.kubernetes.io/identity";
  /** The component's value of {@link #IDENTITY_LABEL}. */
  public static final String KUBE_APISERVER = "kube-apiserver";
  /** Label with the server's host name ({@code v1.LabelHostname}). */
  public static final String HOSTNAME_LABEL = "kubernetes.io/hostname";
  /** Annotation with the {@code ip:port} peers proxy to ({@code v1.AnnotationPeerAdvertiseAddress}). */
  public static final String PEER_ADVERTISE_ADDRESS = "kubernetes.io/peer-advertise-address";

  private ApiserverIdentity() {
  }

  /**
   * @param serverId the node's server ID (hashed in place of upstream's host name)
   * @return the identity Lease's name, {@code apiserver-} and 26 base32 characters
   */
  public static String leaseName(String serverId) {
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    for (String part : new String[] {serverId, KUBE_APISERVER}) {
      byte[] b = part.getBytes(StandardCharsets.UTF_8);
      if (b.length > 0xFFFF) {
        throw new IllegalArgumentException("identity part longer than 65535 bytes");
      }
      data.write(b.length >>> 8);
      data.write(b.length & 0xFF);
      data.writeBytes(b);
    }
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(data.toByteArray());
      return "apiserver-" + Base32.toBase32String(Arrays.copyOf(hash, 16)).replace("=", "").toLowerCase(Locale.ROOT);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  /**
   * The host name, as Go's {@code os.Hostname} ({@code /proc/sys/kernel/hostname} on Linux), else the JDK's local
   * host name; cut to 63 characters, a label value's limit.
   *
   * @return the host name, or {@code localhost} when none is known
   */
  public static String hostname() {
    String h = null;
    try {
      Path p = Path.of("/proc/sys/kernel/hostname");
      if (Files.isReadable(p)) {
        h = Files.readString(p).trim();
      }
      if (h == null || h.isEmpty()) {
        h = InetAddress.getLocalHost().getHostName();
      }
    } catch (java.io.IOException | RuntimeException e) {
      h = null;
    }
    if (h == null || h.isEmpty()) {
      return "localhost";
    }
    return h.length() > 63 ? h.substring(0, 63) : h;
  }
}
