package io.mvproxy.node.cli;

import java.nio.file.Files;
import java.nio.file.Path;
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

  /**
   * System property naming the class-data archive (AppCDS, {@code mvproxy cds-archive}) this JVM's class path was
   * archived with; {@code bin/mvproxy} sets it when the archive exists, so that the node processes a launcher starts
   * ({@code demo}, {@code rehearse}) use it too.
   */
  public static final String CDS_ARCHIVE_PROPERTY = "mvproxy.cds.archive";

  private JvmFlags() {
  }

  /**
   * The flags that make a node JVM map the class-data archive named by {@value #CDS_ARCHIVE_PROPERTY}: its classes
   * come parsed and verified from the archive instead of the jars (README "Where a restart's time goes").
   * {@code -Xshare:auto}: an archive made for other jars (a rebuild, another class path) only costs the time it saves;
   * the JVM says {@code Unable to use shared archive} once and starts as without it.
   *
   * @param classPath the class path the child JVM runs with
   * @return {@code -XX:SharedArchiveFile=<archive> -Xshare:auto}, or no flags when the property is unset, the file is
   *     missing or {@code classPath} is not this JVM's own (the archive was made for this JVM's class path)
   */
  public static List<String> classDataSharing(String classPath) {
    String archive = System.getProperty(CDS_ARCHIVE_PROPERTY);
    if (archive == null || archive.isEmpty() || !Files.isRegularFile(Path.of(archive))
        || !classPath.equals(System.getProperty("java.class.path"))) {
      return List.of();
    }
    return List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-D" + CDS_ARCHIVE_PROPERTY + "=" + archive);
  }
}
