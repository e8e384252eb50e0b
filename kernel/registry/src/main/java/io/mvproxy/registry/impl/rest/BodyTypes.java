package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.buffer.Buffer;
import java.util.List;

/**
 * The {@code Content-Type} of create and update bodies, as apiserver's {@code negotiation.NegotiateInputSerializer}:
 * custom resources accept {@code application/json} (also when the header is absent) and {@code application/yaml};
 * anything else is {@code 415 UnsupportedMediaType} {@code the body of the request was in an unknown format -
 * accepted media types include: application/json, application/yaml} and nothing is stored.
 */
public final class BodyTypes {
  /** Media types accepted for whole objects. */
  public static final List<String> ACCEPTED = List.of("application/json", "application/yaml");

  private BodyTypes() {
  }

  /**
   * @param req  a create or update
   * @param body its body
   * @return {@code body}
   * @throws StatusException 415 for another Content-Type
   */
  public static Buffer requireObject(CrdRequest req, Buffer body) {
    String ct = mediaType(req.ctx().request().getHeader("Content-Type"));
    if (!ct.isEmpty() && !ACCEPTED.contains(ct)) {
      throw StatusException.unsupportedMediaType(ACCEPTED);
    }
    return body;
  }

  /** @param contentType a header value or null @return true for {@code application/yaml} */
  public static boolean isYaml(String contentType) {
    return "application/yaml".equals(mediaType(contentType));
  }

  private static String mediaType(String contentType) {
    return contentType == null ? "" : contentType.split(";")[0].trim().toLowerCase();
  }
}
