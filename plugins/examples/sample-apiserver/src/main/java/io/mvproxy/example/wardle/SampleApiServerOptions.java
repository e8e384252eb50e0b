package io.mvproxy.example.wardle;

import java.util.ArrayList;
import java.util.List;

/**
 * Command-line options of the sample API server, named like kube-apiserver / kubernetes/sample-apiserver flags.
 *
 * @param securePort                HTTPS port ({@code --secure-port}, default 8443; 0 = any free port)
 * @param bindAddress               IP to listen on ({@code --bind-address}, default {@code 0.0.0.0})
 * @param tlsCertFile               PEM serving certificate ({@code --tls-cert-file}, required)
 * @param tlsPrivateKeyFile         PEM private key ({@code --tls-private-key-file}, required)
 * @param requestheaderClientCaFile PEM CA bundle of front proxies ({@code --requestheader-client-ca-file}); when set,
 *                                  resource requests need a client certificate chaining to it plus
 *                                  {@code X-Remote-User}; when null everyone is {@code system:anonymous}
 * @param legacyDiscoveryOnly       serve only legacy discovery at {@code /apis} ({@code --legacy-discovery-only}, for
 *                                  tests of aggregators' fallback)
 */
public record SampleApiServerOptions(int securePort, String bindAddress, String tlsCertFile, String tlsPrivateKeyFile,
                                     String requestheaderClientCaFile, boolean legacyDiscoveryOnly) {
  /** The usage text printed on {@code --help} and on errors. */
  public static final String USAGE = String.join("\n",
      "usage: sample-apiserver --tls-cert-file FILE --tls-private-key-file FILE [options]",
      "  --secure-port N                      HTTPS port (default 8443, 0 = any)",
      "  --bind-address IP                    listen address (default 0.0.0.0)",
      "  --tls-cert-file FILE                 PEM serving certificate (required)",
      "  --tls-private-key-file FILE          PEM private key (required)",
      "  --requestheader-client-ca-file FILE  CA of front proxies allowed to send X-Remote-User/X-Remote-Group",
      "  --legacy-discovery-only              serve legacy discovery only at /apis (no aggregated v2/v2beta1)");

  /**
   * @throws IllegalArgumentException when the port is out of range or the key pair is missing
   */
  public SampleApiServerOptions {
    if (securePort < 0 || securePort > 65535) {
      throw new IllegalArgumentException("--secure-port must be between 0 and 65535, got " + securePort);
    }
    if (tlsCertFile == null || tlsCertFile.isBlank() || tlsPrivateKeyFile == null || tlsPrivateKeyFile.isBlank()) {
      throw new IllegalArgumentException("--tls-cert-file and --tls-private-key-file are required");
    }
    bindAddress = bindAddress == null || bindAddress.isBlank() ? "0.0.0.0" : bindAddress;
  }

  /**
   * Parses {@code --flag=value} or {@code --flag value} arguments; {@code --legacy-discovery-only} takes an optional
   * {@code =true|false}.
   *
   * @param args the arguments
   * @return the options
   * @throws IllegalArgumentException naming the bad flag
   */
  public static SampleApiServerOptions parse(String[] args) {
    int port = 8443;
    String bind = null;
    String cert = null;
    String key = null;
    String ca = null;
    boolean legacy = false;
    List<String> a = new ArrayList<>(List.of(args));
    for (int i = 0; i < a.size(); i++) {
      String arg = a.get(i);
      String name = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      if (name.equals("--legacy-discovery-only")) {
        legacy = value == null || Boolean.parseBoolean(value);
        continue;
      }
      if (!List.of("--secure-port", "--bind-address", "--tls-cert-file", "--tls-private-key-file",
          "--requestheader-client-ca-file").contains(name)) {
        throw new IllegalArgumentException("unknown flag " + name);
      }
      if (value == null) {
        if (i + 1 >= a.size()) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        value = a.get(++i);
      }
      switch (name) {
        case "--secure-port" -> {
          try {
            port = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--secure-port: not a number: " + value, e);
          }
        }
        case "--bind-address" -> bind = value;
        case "--tls-cert-file" -> cert = value;
        case "--tls-private-key-file" -> key = value;
        case "--requestheader-client-ca-file" -> ca = value;
        default -> throw new IllegalArgumentException("unknown flag " + name);
      }
    }
    return new SampleApiServerOptions(port, bind, cert, key, ca, legacy);
  }
}
