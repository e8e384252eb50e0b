package io.mvproxy.registry.impl.rest;

/**
 * The representation a client asked for in {@code Accept} (apiserver {@code pkg/endpoints/handlers/negotiation}):
 * a plain object, a {@code meta.k8s.io} Table, or PartialObjectMetadata(List).
 *
 * @param as      {@code ""} for plain JSON, {@code Table}, {@code PartialObjectMetadata} or
 *                {@code PartialObjectMetadataList}
 * @param version {@code meta.k8s.io} version ({@code v1} or {@code v1beta1}) for the non-plain forms
 */
public record MediaView(String as, String version) {
  /** Plain JSON. */
  public static final MediaView PLAIN = new MediaView("", "");

  /** @return true for Table */
  public boolean table() {
    return "Table".equals(as);
  }

  /** @return true for PartialObjectMetadata or PartialObjectMetadataList */
  public boolean partial() {
    return as.startsWith("PartialObjectMetadata");
  }

  /** @return {@code meta.k8s.io/<version>} */
  public String metaApiVersion() {
    return "meta.k8s.io/" + version;
  }

  /** @return the Content-Type of the answer */
  public String contentType() {
    return as.isEmpty() ? Responses.JSON : "application/json;as=" + as + ";v=" + version + ";g=meta.k8s.io";
  }

  /** The media types custom resources are served in (406 lists them). */
  public static final java.util.List<String> SERVED = java.util.List.of("application/json", "application/yaml");

  /**
   * As {@link #of}, but an Accept header that names only types this server cannot produce (for example protobuf
   * only: custom resources have no protobuf form) is refused, as kube-apiserver does.
   *
   * @param accept the header value or null
   * @return the view
   * @throws io.mvproxy.api.StatusException 406 NotAcceptable listing {@link #SERVED}
   */
  public static MediaView require(String accept) {
    if (accept == null || accept.isBlank()) {
      return PLAIN;
    }
    for (String entry : accept.split(",")) {
      String type = entry.split(";")[0].trim().toLowerCase();
      if (type.equals("application/json") || type.equals("*/*") || type.equals("application/*")
          || type.equals("application/yaml") || type.isEmpty()) {
        return of(accept);
      }
    }
    throw io.mvproxy.api.StatusException.notAcceptable(SERVED);
  }

  /**
   * Picks the first acceptable entry of an Accept header: {@code application/json} (or {@code * / *}) without
   * {@code as}, or with {@code as=Table|PartialObjectMetadata|PartialObjectMetadataList;g=meta.k8s.io;v=v1|v1beta1}.
   * Unknown entries (e.g. protobuf) are skipped; nothing acceptable gives plain JSON.
   *
   * @param accept the header value or null
   * @return the view
   */
  public static MediaView of(String accept) {
    if (accept == null || accept.isBlank()) {
      return PLAIN;
    }
    for (String entry : accept.split(",")) {
      String[] parts = entry.split(";");
      String type = parts[0].trim().toLowerCase();
      if (!type.equals("application/json") && !type.equals("*/*") && !type.equals("application/*")) {
        continue;
      }
      String as = "";
      String g = "";
      String v = "";
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2) {
          switch (kv[0].trim()) {
            case "as" -> as = kv[1].trim();
            case "g" -> g = kv[1].trim();
            case "v" -> v = kv[1].trim();
            default -> { }
          }
        }
      }
      if (as.isEmpty()) {
        return PLAIN;
      }
      boolean known = as.equals("Table") || as.equals("PartialObjectMetadata")
          || as.equals("PartialObjectMetadataList");
      if (known && g.equals("meta.k8s.io") && (v.equals("v1") || v.equals("v1beta1"))) {
        return new MediaView(as, v);
      }
    }
    return PLAIN;
  }
}
