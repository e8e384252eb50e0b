# mvproxy node image.
#
# Packages the node that Maven already built; build it first:
#   mvn -B -DskipTests install
#   DOCKER_BUILDKIT=0 docker build -t mvproxy:local .                       # public base image
#   DOCKER_BUILDKIT=0 docker build --build-arg BASE_IMAGE=mvproxy-base:bookworm -t mvproxy:local .
# (any image with a Java 17+ runtime on PATH and a POSIX shell works as BASE_IMAGE; scripts/compose-check builds
# one with debootstrap when no registry is reachable.)
#
# The image holds the node (/opt/mvproxy/lib/: the kernel and the plugins it ships), the example manifests
# (/opt/mvproxy/plugins/examples) and their plugin jars, packed at build time:
#   /opt/mvproxy/plugins/widgets-old/widgets-old.jar   demo.mvproxy.io/v1 widgets
#   /opt/mvproxy/plugins/widgets-new/widgets-new.jar   demo.mvproxy.io/v2+v1 widgets, v1 gadgets
# Point a node's "pluginDir" at one of those folders, or mount your own folder of plugin jars.
#
# Run: the entrypoint is `java ... io.mvproxy.node.cli.Main serve`; the default arguments read
# /etc/mvproxy/node.json (relative paths in it are relative to /etc/mvproxy). Extra arguments are flags
# (`--secure-port=7443`). JVM options: JAVA_TOOL_OPTIONS. Heap: 75% of the container's memory limit.
ARG BASE_IMAGE=eclipse-temurin:17-jre
FROM ${BASE_IMAGE}

LABEL io.mvproxy.image=node
ARG MVPROXY_UID=10001
ARG MVPROXY_GID=10001

# A non-root user (useradd where the base has it, /etc/passwd lines otherwise); /var/lib/mvproxy is the working
# folder, writable by any uid so the containers may also run as the host user (compose: MVPROXY_UID).
RUN set -eu; \
    if command -v useradd >/dev/null 2>&1; then \
      groupadd -g "${MVPROXY_GID}" mvproxy && \
      useradd -u "${MVPROXY_UID}" -g "${MVPROXY_GID}" -d /var/lib/mvproxy -M -s /usr/sbin/nologin mvproxy; \
    else \
      echo "mvproxy:x:${MVPROXY_GID}:" >> /etc/group; \
      echo "mvproxy:x:${MVPROXY_UID}:${MVPROXY_GID}:mvproxy:/var/lib/mvproxy:/usr/sbin/nologin" >> /etc/passwd; \
    fi; \
    mkdir -p /opt/mvproxy/plugins /etc/mvproxy /var/lib/mvproxy; \
    chown "${MVPROXY_UID}:${MVPROXY_GID}" /var/lib/mvproxy; \
    chmod 1777 /var/lib/mvproxy; \
    java -version

COPY dist/target/lib/ /opt/mvproxy/lib/
COPY plugins/examples/widgets-old/ /opt/mvproxy/plugins/examples/widgets-old/
COPY plugins/examples/widgets-new/ /opt/mvproxy/plugins/examples/widgets-new/

# Plugin jars from the example manifests (the same packer as `bin/mvproxy plugin pack`).
RUN set -eu; \
    for p in widgets-old widgets-new; do \
      java -cp '/opt/mvproxy/lib/*' io.mvproxy.node.cli.Main plugin pack \
        --out "/opt/mvproxy/plugins/$p/$p.jar" --name "$p" --version demo /opt/mvproxy/plugins/examples/$p/*.yaml; \
    done; \
    chmod -R a+rX /opt/mvproxy

# The class-data archive (AppCDS) of the node's classes for this class path (/opt/mvproxy/lib/*): a training start of
# two nodes on loopback, as bin/mvproxy makes it (README "Where a restart's time goes"). Should the training fail, the
# JDK's own default archive takes its place (a JDK without one: no file, and the JVM starts without sharing).
RUN set -eu; \
    java --add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED \
      --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
      --add-opens java.management/sun.management=ALL-UNNAMED \
      --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
      -Dhazelcast.phone.home.enabled=false -Dhazelcast.logging.type=jdk -Dmvproxy.home=/opt/mvproxy \
      -cp '/opt/mvproxy/lib/*' io.mvproxy.node.cli.Main cds-archive --out /opt/mvproxy/mvproxy.jsa \
    || cp "$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')/lib/server/classes.jsa" \
      /opt/mvproxy/mvproxy.jsa \
    || echo "no class-data archive: the node starts without one"; \
    if [ -f /opt/mvproxy/mvproxy.jsa ]; then chmod a+r /opt/mvproxy/mvproxy.jsa; fi

USER ${MVPROXY_UID}:${MVPROXY_GID}
WORKDIR /var/lib/mvproxy
EXPOSE 6443
STOPSIGNAL SIGTERM
# /readyz with curl when the base image has it (eclipse-temurin does); otherwise only "the HTTPS port accepts".
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["bash", "-c", "if command -v curl >/dev/null; then curl -fsk https://127.0.0.1:6443/readyz; else exec 3<>/dev/tcp/127.0.0.1/6443; fi"]

# The JVM flags of bin/mvproxy (JvmFlags.HAZELCAST, the class-data archive), as exec form so java is PID 1 and gets SIGTERM itself.
ENTRYPOINT ["java", "--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", \
  "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", \
  "--add-opens", "java.management/sun.management=ALL-UNNAMED", \
  "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED", \
  "-Dhazelcast.phone.home.enabled=false", "-Dhazelcast.logging.type=jdk", \
  "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-Dmvproxy.home=/opt/mvproxy", \
  "-XX:SharedArchiveFile=/opt/mvproxy/mvproxy.jsa", "-Xshare:auto", \
  "-cp", "/opt/mvproxy/lib/*", "io.mvproxy.node.cli.Main", "serve"]
CMD ["--config", "/etc/mvproxy/node.json"]
