package io.mvproxy.node.cli;

import java.util.List;

/** JVM flags for node processes: the JDK 17 opens Hazelcast needs (stack-notes.md), kept in one place. */
public final class JvmFlags {
  /** Flags that silence Hazelcast's reflective-access warnings on JDK 17. */
  public static final List<String> HAZELCAST = List.of("--add-modules", "java.se",
      "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens", "java.base/java.lang=ALL-UNNAMED",
      "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens", "java.management/sun.management=ALL-UNNAMED",
      "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
      "-Dhazelcast.phone.home.enabled=false", "-Dhazelcast.logging.type=jdk");

  private JvmFlags() {
  }
}
