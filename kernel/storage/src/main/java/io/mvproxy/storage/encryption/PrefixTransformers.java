package io.mvproxy.storage.encryption;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A list of transformers each found by the prefix of the value, as upstream's {@code NewPrefixTransformers}
 * ({@code apiserver/pkg/storage/value/transformer.go}): the first writes (its prefix prepended); a read tries every
 * transformer whose prefix matches, in order, and is stale unless the first one read it. An empty prefix
 * (identity) matches every value and its failure is skipped; the failures of matching transformers are reported
 * together (upstream's aggregate: one message, or {@code [m1, m2]}); no match at all is {@code noMatch}.
 */
public final class PrefixTransformers implements ValueTransformer {
  /**
   * One prefix and its transformer.
   *
   * @param prefix      bytes the stored value starts with ({@code k8s:enc:aesgcm:v1:}, {@code key1:}; empty for
   *                    identity)
   * @param transformer reads and writes what follows the prefix
   */
  public record Entry(byte[] prefix, ValueTransformer transformer) {
  }

  private final List<Entry> entries;
  private final String noMatch;

  /**
   * @param noMatch the error text when no prefix matches
   * @param entries at least one; the first writes
   * @throws IllegalArgumentException when empty
   */
  public PrefixTransformers(String noMatch, List<Entry> entries) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("no transformers");
    }
    this.entries = List.copyOf(entries);
    this.noMatch = noMatch;
  }

  /** @return the entries, the writing one first */
  public List<Entry> entries() {
    return entries;
  }

  @Override
  public Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    List<String> errors = null;
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if (!startsWith(data, e.prefix())) {
        continue;
      }
      byte[] rest = e.prefix().length == 0 ? data : java.util.Arrays.copyOfRange(data, e.prefix().length, data.length);
      try {
        Read r = e.transformer().fromStorage(rest, authenticatedData);
        return new Read(r.data(), r.stale() || i != 0);
      } catch (TransformException ex) {
        if (e.prefix().length == 0) {
          continue; // identity higher up when migrating away from encryption: try the next one
        }
        if (errors == null) {
          errors = new ArrayList<>();
        }
        errors.add(ex.getMessage());
      }
    }
    if (errors != null) {
      throw new TransformException(aggregate(errors));
    }
    throw new TransformException(noMatch);
  }

  @Override
  public byte[] toStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    Entry first = entries.get(0);
    byte[] body = first.transformer().toStorage(data, authenticatedData);
    byte[] out = new byte[first.prefix().length + body.length];
    System.arraycopy(first.prefix(), 0, out, 0, first.prefix().length);
    System.arraycopy(body, 0, out, first.prefix().length, body.length);
    return out;
  }

  /** @return upstream's aggregate message ({@code errors.NewAggregate}): distinct messages, bracketed when several */
  static String aggregate(List<String> messages) {
    Set<String> seen = new LinkedHashSet<>(messages);
    return seen.size() == 1 ? seen.iterator().next() : "[" + String.join(", ", seen) + "]";
  }

  /** @return true when {@code data} begins with {@code prefix} */
  static boolean startsWith(byte[] data, byte[] prefix) {
    if (data.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (data[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
