package io.mvproxy.security;

import io.mvproxy.api.UserInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parser for the kube-apiserver {@code --token-auth-file}: a CSV file of {@code token,user,uid[,"group1,group2"]}
 * (follows {@code staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go}). Fields may be
 * double-quoted ({@code ""} inside quotes is a literal quote); leading spaces of a field are ignored; blank lines and
 * lines starting with {@code #} are skipped; columns after the fourth are ignored; a later duplicate token wins.
 * A quoted field must end on the line it starts on.
 */
public final class TokenFile {
  private TokenFile() {
  }

  /**
   * Reads and parses a token file.
   *
   * @param file the file named by {@code --token-auth-file}
   * @return token to user, in file order (groups as listed, without {@code system:authenticated})
   * @throws IllegalArgumentException naming the flag, the file and the line number when the file is missing,
   *                                  unreadable or malformed
   */
  public static Map<String, UserInfo> load(Path file) {
    if (file == null || !Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--token-auth-file: file " + file + " does not exist");
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("--token-auth-file: cannot read " + file + ": " + e.getMessage(), e);
    }
    return parse(text, "--token-auth-file " + file);
  }

  /**
   * Parses token file content.
   *
   * @param content the CSV text
   * @param source  what to call the content in error messages (e.g. {@code --token-auth-file /etc/tokens.csv})
   * @return token to user, in file order
   * @throws IllegalArgumentException {@code "<source> line <n>: <problem>"} for a malformed line
   */
  public static Map<String, UserInfo> parse(String content, String source) {
    Map<String, UserInfo> out = new LinkedHashMap<>();
    String[] lines = content.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (i == 0 && line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
      String t = line.strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      List<String> f;
      try {
        f = fields(line);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(source + " line " + (i + 1) + ": " + e.getMessage());
      }
      if (f.size() < 3) {
        throw new IllegalArgumentException(source + " line " + (i + 1)
            + ": must have at least 3 columns (token, user name, user uid), found " + f.size());
      }
      String token = f.get(0).strip();
      String user = f.get(1).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException(source + " line " + (i + 1) + ": empty token");
      }
      if (user.isEmpty()) {
        throw new IllegalArgumentException(source + " line " + (i + 1) + ": empty user name");
      }
      List<String> groups = new ArrayList<>();
      if (f.size() >= 4) {
        for (String g : f.get(3).split(",")) {
          if (!g.isBlank()) {
            groups.add(g.strip());
          }
        }
      }
      out.put(token, new UserInfo(user, f.get(2).strip(), groups, Map.of()));
    }
    return out;
  }

  /** Splits one CSV record (RFC 4180 quoting, leading spaces trimmed as Go's {@code csv.Reader.TrimLeadingSpace}). */
  private static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    int i = 0;
    int n = line.length();
    while (true) {
      while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
        i++;
      }
      StringBuilder f = new StringBuilder();
      if (i < n && line.charAt(i) == '"') {
        int start = i + 1;
        i++;
        boolean closed = false;
        while (i < n) {
          char c = line.charAt(i);
          if (c == '"') {
            if (i + 1 < n && line.charAt(i + 1) == '"') {
              f.append('"');
              i += 2;
              continue;
            }
            closed = true;
            i++;
            break;
          }
          f.append(c);
          i++;
        }
        if (!closed) {
          throw new IllegalArgumentException("unterminated quoted field starting at column " + start);
        }
        while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
          i++;
        }
        if (i < n && line.charAt(i) != ',') {
          throw new IllegalArgumentException("unexpected character '" + line.charAt(i) + "' after quoted field at"
              + " column " + (i + 1));
        }
      } else {
        while (i < n && line.charAt(i) != ',') {
          char c = line.charAt(i);
          if (c == '"') {
            throw new IllegalArgumentException("bare \" in non-quoted field at column " + (i + 1));
          }
          f.append(c);
          i++;
        }
      }
      out.add(f.toString());
      if (i >= n) {
        return out;
      }
      i++; // skip the comma
    }
  }
}
