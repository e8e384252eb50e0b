package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.UserInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class TokenFileTest {
  @Test
  void parsesQuotedGroupsCommentsAndBlankLines() {
    String csv = "# comment line\n"
        + "abc123,alice,uid-1,\"dev,ops\"\n"
        + "\n"
        + "  def456, bob ,uid-2\n"
        + "\"ghi,789\",\"carol \"\"c\"\"\",uid-3,\"g1, g2,,\",ignored-column\n"
        + "jkl,dave,,solo\n";
    Map<String, UserInfo> t = TokenFile.parse(csv, "tokens.csv");
    assertEquals(4, t.size());
    assertEquals(new UserInfo("alice", "uid-1", List.of("dev", "ops"), Map.of()), t.get("abc123"));
    assertEquals(new UserInfo("bob", "uid-2", List.of(), Map.of()), t.get("def456"));
    assertEquals(new UserInfo("carol \"c\"", "uid-3", List.of("g1", "g2"), Map.of()), t.get("ghi,789"));
    assertEquals(List.of("solo"), t.get("jkl").groups());
    assertEquals("", t.get("jkl").uid());
  }

  @Test
  void laterDuplicateWinsAndCrlfAccepted() {
    Map<String, UserInfo> t = TokenFile.parse("a,u1,1\r\na,u2,2\r\n", "x");
    assertEquals("u2", t.get("a").name());
  }

  @Test
  void tooFewColumnsNamesLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenFile.parse("# c\ntok,user,uid\ntok2,user2\n", "--token-auth-file t.csv"));
    assertTrue(e.getMessage().startsWith("--token-auth-file t.csv line 3: must have at least 3 columns"),
        e.getMessage());
  }

  @Test
  void unterminatedQuoteNamesLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenFile.parse("tok,user,uid,\"g1,g2\n", "f"));
    assertTrue(e.getMessage().contains("f line 1: unterminated quoted field"), e.getMessage());
  }

  @Test
  void emptyTokenAndStrayQuoteRejected() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.parse(",user,uid", "f"))
        .getMessage().contains("line 1: empty token"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("\n\nto\"k,user,uid", "f"))
        .getMessage().contains("line 3: bare \""));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("\"tok\"x,user,uid", "f"))
        .getMessage().contains("line 1: unexpected character"));
  }

  @Test
  void loadNamesFlagForMissingFile(@TempDir Path dir) throws Exception {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TokenFile.load(dir.resolve("nope.csv")));
    assertTrue(e.getMessage().startsWith("--token-auth-file"), e.getMessage());
    Path f = dir.resolve("t.csv");
    Files.writeString(f, "t1,alice,1,\"a,b\"\n");
    assertEquals(List.of("a", "b"), TokenFile.load(f).get("t1").groups());
  }
}
