package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import java.util.function.Function;

/**
 * The integer {@code ListOptions} query parameters of a list, watch or deletecollection, decoded as kube-apiserver's
 * parameter codec does before anything else about the request (apimachinery
 * {@code apis/meta/v1/zz_generated.conversion.go autoConvert_url_Values_To_v1_ListOptions}: {@code timeoutSeconds}
 * then {@code limit}, each with {@code strconv.ParseInt}); a present but empty value is an error too.
 *
 * @param timeoutSeconds {@code timeoutSeconds}, null when absent
 * @param limit          {@code limit}, 0 when absent
 */
public record ListQuery(Long timeoutSeconds, long limit) {

  /**
   * @param param query parameter lookup: the first value, {@code ""} for {@code ?limit} or {@code ?limit=}, null
   *              when absent
   * @return the decoded values
   * @throws StatusException 400 BadRequest with Go's text, e.g. {@code strconv.ParseInt: parsing "abc": invalid
   *     syntax} (upstream {@code handlers/get.go}: {@code errors.NewBadRequest(err.Error())})
   */
  public static ListQuery decode(Function<String, String> param) {
    try {
      String ts = param.apply("timeoutSeconds");
      Long timeout = ts == null ? null : GoParseInt.parse(ts);
      String l = param.apply("limit");
      return new ListQuery(timeout, l == null ? 0 : GoParseInt.parse(l));
    } catch (IllegalArgumentException e) {
      throw StatusException.badRequest(e.getMessage());
    }
  }
}
