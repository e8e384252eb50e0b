package io.mvproxy.security;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Generates a development PKI into a directory, laid out like kubeadm's {@code /etc/kubernetes/pki}: EC P-256 keys,
 * PEM {@code CERTIFICATE} and PKCS#8 {@code PRIVATE KEY} files, and a {@code kubeconfig} for the admin user.
 * Idempotent: files that already exist are kept and only missing ones are made (a certificate/key pair is one unit;
 * a pair no longer signed by its CA, because the CA was deleted and regenerated, is re-issued). The {@code kubeconfig}
 * (and {@code README.md}) is rewritten only when missing, when it lacks a context for a requested node, or when
 * {@code ca.crt} or {@code admin.crt} was (re)made. Not for production use.
 *
 * <p>Files: {@code ca.crt/.key} (cluster CA: serving and user client certs; {@code --client-ca-file},
 * {@code --peer-ca-file}), {@code front-proxy-ca.crt/.key} (separate CA for peer hops;
 * {@code --requestheader-client-ca-file}), {@code <node>.crt/.key} (serving cert), {@code <node>-proxy-client.crt/.key}
 * (CN {@value #PROXY_CLIENT_CN}; {@code --proxy-client-cert-file}), {@code admin.crt/.key} (CN admin, O
 * system:masters), {@code sa.key}/{@code sa.pub} (RSA 2048 key pair of the service account tokens, as kubeadm's:
 * {@code --service-account-signing-key-file} and {@code --service-account-key-file} of every node),
 * {@code cluster-secret} (32 random bytes, base64: the fleet secret, {@code --cluster-secret-file} of every node),
 * {@code kubeconfig}, {@code README.md}.
 */
public final class DevPki {
  /** Common name of every node's proxy client certificate; the value for {@code --requestheader-allowed-names}. */
  public static final String PROXY_CLIENT_CN = "mvproxy-peer";
  /** First default server port; node {@code i} (0-based) defaults to {@code https://127.0.0.1:(6443+i)}. */
  public static final int DEFAULT_BASE_PORT = 6443;

  private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?");
  private static final Set<String> RESERVED = Set.of("ca", "front-proxy-ca", "admin", "kubeconfig", "README", "sa");

  /**
   * What to generate.
   *
   * @param nodes      node names (DNS-1123 labels/subdomains, at least one; the first is the current context)
   * @param extraSans  extra subject alternative names for every serving cert: IP literals become IP SANs, anything
   *                   else a DNS SAN
   * @param serverUrls node name to API server URL for the kubeconfig; missing nodes get the default URL
   * @param validity   certificate lifetime
   */
  public record Options(List<String> nodes, List<String> extraSans, Map<String, String> serverUrls,
                        Duration validity) {
    /**
     * Copies the collections, defaults nulls (no SANs, default URLs, 365 days) and validates node names.
     *
     * @param nodes      node names
     * @param extraSans  extra SANs, or null
     * @param serverUrls node to URL, or null
     * @param validity   lifetime, or null for 365 days
     * @throws IllegalArgumentException on no, duplicate or invalid node names, or a non-positive validity
     */
    public Options {
      nodes = List.copyOf(nodes == null ? List.of() : nodes);
      extraSans = List.copyOf(extraSans == null ? List.of() : extraSans);
      serverUrls = Map.copyOf(serverUrls == null ? Map.of() : serverUrls);
      validity = validity == null ? Duration.ofDays(365) : validity;
      if (nodes.isEmpty()) {
        throw new IllegalArgumentException("at least one node name is required");
      }
      if (new LinkedHashSet<>(nodes).size() != nodes.size()) {
        throw new IllegalArgumentException("duplicate node names: " + nodes);
      }
      for (String n : nodes) {
        if (!NODE_NAME.matcher(n).matches() || RESERVED.contains(n) || n.endsWith("-proxy-client")) {
          throw new IllegalArgumentException("invalid node name '" + n
              + "': use lower-case letters, digits, '-' and '.', not a reserved file name");
        }
      }
      if (validity.isNegative() || validity.isZero()) {
        throw new IllegalArgumentException("validity must be positive");
      }
    }
  }

  private final Path dir;
  private final SecureRandom random = new SecureRandom();

  /**
   * @param dir the PKI directory; created by {@link #generate} when missing
   */
  public DevPki(Path dir) {
    this.dir = dir;
  }

  /**
   * Generates the missing pieces of the PKI with a validity of 365 days.
   *
   * @param nodes      node names, in order (the first is the kubeconfig's current context)
   * @param extraSans  extra IP/DNS SANs for the serving certs, may be empty
   * @param serverUrls node to server URL for the kubeconfig, may be empty (default {@code https://127.0.0.1:<6443+i>})
   * @return the files written by this call (empty when everything existed)
   * @throws IOException              if a file cannot be read or written
   * @throws IllegalArgumentException on invalid node names or SANs
   * @throws IllegalStateException    if only one half of a CA pair exists (it cannot be completed safely)
   */
  public List<Path> generate(List<String> nodes, List<String> extraSans, Map<String, String> serverUrls)
      throws IOException {
    return generate(new Options(nodes, extraSans, serverUrls, null));
  }

  /**
   * Generates the missing pieces of the PKI; the kubeconfig is written again when the credentials changed, a node has
   * no context, or a server URL given in {@code options} is not the one it names.
   *
   * @param options what to generate
   * @return the files written by this call
   * @throws IOException              if a file cannot be read or written
   * @throws IllegalArgumentException on invalid SANs
   * @throws IllegalStateException    if only one half of a CA pair exists
   */
  public List<Path> generate(Options options) throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    Duration v = options.validity();
    Issued ca = ca("ca", "mvproxy-ca", v, written);
    Issued fp = ca("front-proxy-ca", "mvproxy-front-proxy-ca", v, written);
    List<GeneralName> extra = new ArrayList<>();
    for (String san : options.extraSans()) {
      extra.add(sanOf(san));
    }
    for (String node : options.nodes()) {
      List<GeneralName> sans = new ArrayList<>(List.of(new GeneralName(GeneralName.dNSName, node),
          new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
      sans.addAll(extra);
      leaf(node, name(node, null), ca, v, sans, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth,
          KeyPurposeId.id_kp_clientAuth}, written);
      leaf(node + "-proxy-client", name(PROXY_CLIENT_CN, null), fp, v, List.of(),
          new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, written);
    }
    Issued admin = leaf("admin", name("admin", "system:masters"), ca, v, List.of(),
        new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}, written);
    serviceAccountKeys(written);
    clusterSecret(written);
    boolean credentialsChanged = written.contains(caCert()) || written.contains(adminCert());
    // explicit server URLs (a fleet on ports chosen per run) must be the kubeconfig's: a kept file would send
    // kubectl to the previous run's ports
    if (credentialsChanged || !DevPkiDocs.hasContexts(kubeconfig(), options.nodes())
        || !DevPkiDocs.hasServers(kubeconfig(), options.serverUrls())) {
      write(kubeconfig(), DevPkiDocs.kubeconfig(options, ca.cert(), admin.cert(), admin.key()), true, written);
    }
    if (written.contains(kubeconfig()) || !Files.exists(dir.resolve("README.md"))) {
      write(dir.resolve("README.md"), DevPkiDocs.readme(options), false, written);
    }
    return List.copyOf(written);
  }

  /** @return {@code sa.key}: PKCS#8 PEM RSA key signing service account tokens (the same on every node) */
  public Path serviceAccountKey() {
    return dir.resolve("sa.key");
  }

  /** @return {@code sa.pub}: PEM public key verifying service account tokens */
  public Path serviceAccountPublicKey() {
    return dir.resolve("sa.pub");
  }

  /**
   * @return {@code cluster-secret}: the fleet's shared secret (32 random bytes, base64, one line; mode 0600), the
   *     {@code --cluster-secret-file} of every node
   */
  public Path clusterSecret() {
    return dir.resolve("cluster-secret");
  }

  /** Writes {@code cluster-secret} when it is missing (an existing one is kept: the running fleet shares it). */
  private void clusterSecret(List<Path> written) throws IOException {
    if (Files.exists(clusterSecret())) {
      return;
    }
    byte[] b = new byte[32];
    random.nextBytes(b);
    write(clusterSecret(), java.util.Base64.getEncoder().encodeToString(b) + "\n", true, written);
  }

  /** Writes {@code sa.key} and {@code sa.pub} when either is missing (kubeadm's RSA 2048 pair). */
  private void serviceAccountKeys(List<Path> written) throws IOException {
    if (Files.exists(serviceAccountKey()) && Files.exists(serviceAccountPublicKey())) {
      return;
    }
    KeyPair kp;
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048, random);
      kp = g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("RSA is not available", e);
    }
    write(serviceAccountKey(), Pem.encodePrivateKey(kp.getPrivate()), true, written);
    String pub = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(kp.getPublic().getEncoded());
    write(serviceAccountPublicKey(), "-----BEGIN PUBLIC KEY-----\n" + pub + "\n-----END PUBLIC KEY-----\n", false,
        written);
  }

  /** @return the PKI directory */
  public Path dir() {
    return dir;
  }

  /** @return {@code ca.crt}: the cluster CA ({@code --client-ca-file}, {@code --peer-ca-file}) */
  public Path caCert() {
    return dir.resolve("ca.crt");
  }

  /** @return {@code front-proxy-ca.crt}: the peer-hop CA ({@code --requestheader-client-ca-file}) */
  public Path frontProxyCaCert() {
    return dir.resolve("front-proxy-ca.crt");
  }

  /**
   * @param node node name
   * @return {@code <node>.crt}, the serving cert ({@code --tls-cert-file})
   */
  public Path servingCert(String node) {
    return dir.resolve(node + ".crt");
  }

  /**
   * @param node node name
   * @return {@code <node>.key}, the serving key ({@code --tls-private-key-file})
   */
  public Path servingKey(String node) {
    return dir.resolve(node + ".key");
  }

  /**
   * @param node node name
   * @return {@code <node>-proxy-client.crt}, the peer-hop client cert ({@code --proxy-client-cert-file})
   */
  public Path proxyClientCert(String node) {
    return dir.resolve(node + "-proxy-client.crt");
  }

  /**
   * @param node node name
   * @return {@code <node>-proxy-client.key}, the peer-hop client key ({@code --proxy-client-key-file})
   */
  public Path proxyClientKey(String node) {
    return dir.resolve(node + "-proxy-client.key");
  }

  /** @return {@code admin.crt}: CN admin, O system:masters */
  public Path adminCert() {
    return dir.resolve("admin.crt");
  }

  /** @return {@code admin.key} */
  public Path adminKey() {
    return dir.resolve("admin.key");
  }

  /** @return {@code kubeconfig}: one cluster and context per node, user admin */
  public Path kubeconfig() {
    return dir.resolve("kubeconfig");
  }

  /**
   * @param index 0-based node index
   * @return the default server URL {@code https://127.0.0.1:<6443+index>}
   */
  public static String defaultServerUrl(int index) {
    return "https://127.0.0.1:" + (DEFAULT_BASE_PORT + index);
  }

  private record Issued(X509Certificate cert, PrivateKey key) {
  }

  private Issued ca(String base, String cn, Duration validity, List<Path> written) throws IOException {
    Path crt = dir.resolve(base + ".crt");
    Path key = dir.resolve(base + ".key");
    boolean hasCrt = Files.exists(crt);
    boolean hasKey = Files.exists(key);
    if (hasCrt && hasKey) {
      return load(crt, key);
    }
    if (hasCrt || hasKey) {
      throw new IllegalStateException("only one of " + crt + " and " + key
          + " exists; remove it (and every certificate it signed) to regenerate the CA");
    }
    KeyPair kp = keyPair();
    X500Name subject = name(cn, null);
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), notBefore(now),
          java.util.Date.from(now.plus(validity)), subject, kp.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      Issued issued = new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
      save(issued, crt, key, written);
      return issued;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create CA " + base, e);
    }
  }

  private Issued leaf(String base, X500Name subject, Issued issuer, Duration validity, List<GeneralName> sans,
                      KeyPurposeId[] ekus, List<Path> written) throws IOException {
    Path crt = dir.resolve(base + ".crt");
    Path key = dir.resolve(base + ".key");
    if (Files.exists(crt) && Files.exists(key)) {
      Issued existing = load(crt, key);
      if (signedBy(existing.cert(), issuer.cert())) {
        return existing;
      } // else the CA was regenerated: re-issue under the current CA
    }
    KeyPair kp = keyPair();
    Instant now = Instant.now();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer.cert(), serial(), notBefore(now),
          java.util.Date.from(now.plus(validity)), subject, kp.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(ekus))
          .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()))
          .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(issuer.cert()));
      if (!sans.isEmpty()) {
        b.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(sans.toArray(new GeneralName[0])));
      }
      Issued issued = new Issued(sign(b, issuer.key()), kp.getPrivate());
      save(issued, crt, key, written);
      return issued;
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create certificate " + base, e);
    }
  }

  private static boolean signedBy(X509Certificate cert, X509Certificate issuer) {
    try {
      cert.verify(issuer.getPublicKey());
      return cert.getIssuerX500Principal().equals(issuer.getSubjectX500Principal());
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static X500Name name(String cn, String org) {
    X500NameBuilder b = new X500NameBuilder(BCStyle.INSTANCE);
    if (org != null) {
      b.addRDN(BCStyle.O, org);
    }
    return b.addRDN(BCStyle.CN, cn).build();
  }

  private static GeneralName sanOf(String san) {
    String s = san.trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("empty subject alternative name");
    }
    if (s.matches("[0-9.]+")) {
      if (!s.matches("(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}")) {
        throw new IllegalArgumentException("invalid IPv4 address SAN '" + s + "'");
      }
      return new GeneralName(GeneralName.iPAddress, s);
    }
    if (s.contains(":")) {
      String v6 = s.replace("[", "").replace("]", "");
      try {
        InetAddress.getByName(v6); // contains ':' so it is parsed as an IPv6 literal, never resolved
      } catch (IOException e) {
        throw new IllegalArgumentException("invalid IPv6 address SAN '" + s + "'", e);
      }
      return new GeneralName(GeneralName.iPAddress, v6);
    }
    if (!s.matches("(\\*\\.)?[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?")) {
      throw new IllegalArgumentException("invalid DNS SAN '" + s + "'");
    }
    return new GeneralName(GeneralName.dNSName, s);
  }

  private KeyPair keyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"), random);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("EC P-256 is not available", e);
    }
  }

  private BigInteger serial() {
    return new BigInteger(127, random).add(BigInteger.ONE);
  }

  private static java.util.Date notBefore(Instant now) {
    return java.util.Date.from(now.minus(Duration.ofMinutes(5))); // tolerate small clock skew between nodes
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter().getCertificate(
        b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
  }

  private static Issued load(Path crt, Path key) {
    return new Issued(Pem.readCertificates(crt, crt.getFileName().toString()).get(0),
        Pem.readPrivateKey(key, key.getFileName().toString()));
  }

  private void save(Issued issued, Path crt, Path key, List<Path> written) throws IOException {
    write(key, Pem.encodePrivateKey(issued.key()), true, written);
    write(crt, Pem.encodeCertificates(List.of(issued.cert())), false, written);
  }

  private static void write(Path file, String text, boolean secret, List<Path> written) throws IOException {
    Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    if (secret) {
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // non-POSIX file system: keep the default permissions
      }
    }
    try {
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
    written.add(file);
  }
}
