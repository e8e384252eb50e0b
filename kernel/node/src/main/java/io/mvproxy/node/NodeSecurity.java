package io.mvproxy.node;

import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.node.controllers.ControllerIdentities;
import io.mvproxy.security.Authenticator;
import io.mvproxy.security.TlsOptions;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Logger;

/**
 * The TLS and authentication material a node starts with, built from its config before it joins the cluster, so
 * that unusable files fail fast naming the key.
 *
 * @param serverOptions        the HTTPS server's options (serving key pair, client CAs, bind address and port)
 * @param authenticator        client certificates, request headers, static and controller tokens, service accounts
 * @param serviceAccountTokens the service account token issuer and verifier
 * @param peerOptions          the peer-hop client's options, or null when peers are disabled
 * @param busOptions           the clustered event bus's options ({@link #eventBusOptions})
 * @param balancerOptions      the controller manager's client to the other servers when the gate is off and
 *                             {@code --controllers-server-ca-file} is set, else null
 */
record NodeSecurity(HttpServerOptions serverOptions, Authenticator authenticator,
                    ServiceAccountTokens serviceAccountTokens, HttpClientOptions peerOptions,
                    EventBusOptions busOptions, HttpClientOptions balancerOptions) {
  private static final Logger LOG = Logger.getLogger(Node.class.getName());

  /**
   * @param config      the validated config
   * @param controllers this process's controller identities (their tokens authenticate)
   * @return the material
   * @throws ConfigException naming the file when TLS, CA, token or key files are unusable
   */
  static NodeSecurity from(NodeConfig config, ControllerIdentities controllers) {
    HttpServerOptions serverOptions;
    Authenticator authenticator;
    ServiceAccountTokens saTokens;
    HttpClientOptions peerOptions = null;
    EventBusOptions busOptions;
    HttpClientOptions balancerOptions = null;
    try {
      io.vertx.core.net.SSLEngineOptions tlsEngine = TlsOptions.engine(config.serving().tlsEngine());
      LOG.info("TLS engine: " + TlsOptions.resolve(config.serving().tlsEngine()) + " ("
          + ConfigKey.TLS_ENGINE.flag() + "=" + config.serving().tlsEngine() + ")");
      serverOptions = TlsOptions.serverEngine(TlsOptions.server(str(config.tlsCertFile()),
              str(config.tlsPrivateKeyFile()), str(config.clientCaFile()), str(config.requestheaderClientCaFile())),
          tlsEngine, true).setHost(config.bindAddress()).setPort(config.securePort());
      NodeConfig.ServiceAccounts sa = config.serviceAccounts();
      saTokens = ServiceAccountTokens.fromFlags(sa.issuers(), sa.signingKeyFile(),
          sa.keyFile() == null ? List.of() : List.of(sa.keyFile()), sa.apiAudiences(), sa.maxExpiration());
      authenticator = Authenticator.fromFlags(str(config.clientCaFile()), str(config.requestheaderClientCaFile()),
          config.requestheaderAllowedNames(), str(config.tokenAuthFile())).withTokens(controllers.tokens())
          .withServiceAccounts(saTokens);
      if (config.peersEnabled()) {
        peerOptions = TlsOptions.peerClient(str(config.peerCaFile()), str(config.proxyClientCertFile()),
            str(config.proxyClientKeyFile()));
        peerOptions.setSslEngineOptions(tlsEngine.copy());
      }
      busOptions = eventBusOptions(config);
      if (config.controllers().serverCaFile() != null) {
        // gate off: the controller manager reaches the other servers as through a load balancer
        balancerOptions = TlsOptions.peerClient(str(config.controllers().serverCaFile()),
            str(config.proxyClientCertFile()), str(config.proxyClientKeyFile()));
        balancerOptions.setSslEngineOptions(tlsEngine.copy());
      }
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    return new NodeSecurity(serverOptions, authenticator, saTokens, peerOptions, busOptions, balancerOptions);
  }

  /**
   * Logs the warnings kube-apiserver would give for this config's insecure or ineffective choices: peer advertise
   * flags set alone, no cluster secret, no client authentication.
   *
   * @param config the validated config
   */
  static void warn(NodeConfig config) {
    if ((config.peerAdvertiseIp() == null) != (config.peerAdvertisePort() == null)) {
      LOG.warning(ConfigKey.PEER_ADVERTISE_IP.flag() + " and " + ConfigKey.PEER_ADVERTISE_PORT.flag()
          + " are used only together (as in kube-apiserver); peers will use " + config.peerHost() + " and the secure port");
    }
    if (config.clusterSecretFile() == null) {
      LOG.warning("fleet security is off: " + ConfigKey.CLUSTER_SECRET_FILE.flag() + " is not set, so anything that "
          + "reaches the Hazelcast port " + config.clusterHost() + ":" + config.clusterPort() + " and knows the cluster "
          + "name joins the cluster" + (io.mvproxy.storage.StorageConfig.MEMORY.equals(config.storage().backend())
          ? " and reads and writes every object (--storage-backend=memory)" : "")
          + "; firewall it to the fleet's members (README \"Security of the fleet's links\")");
    }
    if (config.clientCaFile() == null && config.tokenAuthFile() == null) {
      LOG.warning("neither " + ConfigKey.CLIENT_CA_FILE.flag() + " nor " + ConfigKey.TOKEN_AUTH_FILE.flag()
          + " is set: every request except health checks will get 401");
    }
  }

  /**
   * The clustered event bus: mutual TLS with the node's serving key pair, accepting only certificates signed by
   * {@code --peer-ca-file} (or {@code --client-ca-file} on a node without peers, which signs the same serving
   * certificates in the fleet's PKI); unencrypted, with a warning, only when neither CA is set.
   *
   * @param config the node config
   * @return the event bus options
   * @throws IllegalArgumentException naming the flag when a file is unusable
   */
  static EventBusOptions eventBusOptions(NodeConfig config) {
    ConfigKey ca = config.peerCaFile() != null ? ConfigKey.PEER_CA_FILE
        : config.clientCaFile() != null ? ConfigKey.CLIENT_CA_FILE : null;
    if (ca == null) {
      LOG.warning("neither " + ConfigKey.PEER_CA_FILE.flag() + " nor " + ConfigKey.CLIENT_CA_FILE.flag()
          + " is set: the cluster event bus is NOT encrypted nor authenticated");
      return new EventBusOptions().setHost(config.clusterHost()).setPort(0);
    }
    return TlsOptions.eventBus(config.clusterHost(), str(config.tlsCertFile()), str(config.tlsPrivateKeyFile()),
        str(ca == ConfigKey.PEER_CA_FILE ? config.peerCaFile() : config.clientCaFile()), ca.flag());
  }

  /** @return the path as a string, or null */
  static String str(Path p) {
    return p == null ? null : p.toString();
  }
}
