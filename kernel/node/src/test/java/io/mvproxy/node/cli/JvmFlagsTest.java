package io.mvproxy.node.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link JvmFlags#classDataSharing}: the archive's flags only for an existing archive and this JVM's class path. */
class JvmFlagsTest {
  @TempDir
  Path dir;

  @AfterEach
  void clear() {
    System.clearProperty(JvmFlags.CDS_ARCHIVE_PROPERTY);
  }

  @Test
  void archiveFlagsOnlyForAnExistingArchiveOfThisClassPath() throws Exception {
    String own = System.getProperty("java.class.path");
    assertEquals(List.of(), JvmFlags.classDataSharing(own), "no archive named");
    Path archive = dir.resolve("node.jsa");
    System.setProperty(JvmFlags.CDS_ARCHIVE_PROPERTY, archive.toString());
    assertEquals(List.of(), JvmFlags.classDataSharing(own), "the archive is missing");
    Files.write(archive, new byte[] {1});
    assertEquals(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto",
        "-D" + JvmFlags.CDS_ARCHIVE_PROPERTY + "=" + archive), JvmFlags.classDataSharing(own));
    assertEquals(List.of(), JvmFlags.classDataSharing(own + java.io.File.pathSeparator + dir),
        "another class path");
  }
}
