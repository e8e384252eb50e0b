package io.mvproxy.openapi;

import java.util.List;

/**
 * The query parameters of Kubernetes write, read, list and delete operations as {@code {name, type, description}}
 * triples ({@code apimachinery/pkg/apis/meta/v1} {@code GetOptions}, {@code ListOptions}, {@code CreateOptions},
 * {@code UpdateOptions}, {@code PatchOptions}, {@code DeleteOptions}). Immutable constants only.
 */
final class QueryParams {
  static final QueryParam RESOURCE_VERSION = new QueryParam("resourceVersion", "string", "resourceVersion sets a constraint on "
      + "what resource versions a request may be served from. Defaults to unset");
  static final QueryParam DRY_RUN = new QueryParam("dryRun", "string", "When present, indicates that modifications should not be "
      + "persisted. An invalid or unrecognized dryRun directive will result in an error response and no further "
      + "processing of the request. Valid values are: - All: all dry run stages will be processed");
  static final QueryParam FIELD_MANAGER = new QueryParam("fieldManager", "string", "fieldManager is a name associated with the "
      + "actor or entity that is making these changes. The value must be less than or 128 characters long, and only "
      + "contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.");
  static final QueryParam FIELD_VALIDATION = new QueryParam("fieldValidation", "string", "fieldValidation instructs the server on "
      + "how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values "
      + "are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will "
      + "ignore all but the last duplicate field that the decoder encounters. - Warn: This will send a warning via "
      + "the standard warning response header for each unknown field that is dropped from the object, and for each "
      + "duplicate field that is encountered. The request will still succeed if there are no other errors, and "
      + "will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail "
      + "the request with a BadRequest error if any unknown fields would be dropped from the object, or if any "
      + "duplicate fields are present. The error returned from the server will contain all unknown and duplicate "
      + "fields encountered.");
  static final QueryParam FORCE = new QueryParam("force", "boolean", "Force is going to \"force\" Apply requests. It means user will "
      + "re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.");
  static final List<QueryParam> LIST = List.of(
      new QueryParam("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type "
          + "\"BOOKMARK\". Servers that do not implement bookmarks may ignore this flag."),
      new QueryParam("continue", "string", "The continue option should be set when retrieving more results from the "
          + "server."),
      new QueryParam("fieldSelector", "string", "A selector to restrict the list of returned objects by their "
          + "fields. Defaults to everything."),
      new QueryParam("labelSelector", "string", "A selector to restrict the list of returned objects by their "
          + "labels. Defaults to everything."),
      new QueryParam("limit", "integer", "limit is a maximum number of responses to return for a list call."),
      RESOURCE_VERSION,
      new QueryParam("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is "
          + "applied to list calls."),
      new QueryParam("sendInitialEvents", "boolean", "`sendInitialEvents=true` may be set together with "
          + "`watch=true`."),
      new QueryParam("timeoutSeconds", "integer", "Timeout for the list/watch call."),
      new QueryParam("watch", "boolean", "Watch for changes to the described resources and return them as a stream "
          + "of add, update, and remove notifications. Specify resourceVersion."));
  static final List<QueryParam> DELETE = List.of(DRY_RUN,
      new QueryParam("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."),
      new QueryParam("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean", "if set to true, it will trigger "
          + "an unsafe deletion of the resource in case the normal deletion flow fails with a corrupt object error."),
      new QueryParam("orphanDependents", "boolean", "Deprecated: please use the PropagationPolicy, this field will be "
          + "deprecated in 1.7."),
      new QueryParam("propagationPolicy", "string", "Whether and how garbage collection will be performed."));

  /**
   * One query parameter.
   *
   * @param name        the parameter name
   * @param type        its OpenAPI type ({@code string}, {@code integer}, {@code boolean})
   * @param description its description
   */
  record QueryParam(String name, String type, String description) {
  }

  private QueryParams() {
  }
}
