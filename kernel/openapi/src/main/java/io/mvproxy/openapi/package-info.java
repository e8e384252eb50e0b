/**
 * OpenAPI for mvproxy nodes: {@link io.mvproxy.openapi.CrdOpenApi} turns a CRD manifest into the v3 and v2 fragments an
 * {@link io.mvproxy.api.ApiSource} publishes; {@link io.mvproxy.openapi.OpenApiDocuments} merges the local fragments
 * into {@code /openapi/v3} (root listing the fleet's group-versions), {@code /openapi/v3/apis/<g>/<v>} and
 * {@code /openapi/v2} (JSON and gnostic protobuf); {@link io.mvproxy.openapi.OpenApiHandler} serves them with ETags and
 * hands per-group-version requests the node lacks to a peer-proxy fallback. What kubectl 1.27-1.33 read is documented
 * in {@code shared/spec/kubectl-captures}: 1.27/1.28 need protobuf {@code /openapi/v2} (a 404 or JSON answer makes
 * {@code apply}/{@code create} fail), all versions use the v3 PATCH operation's {@code fieldValidation} parameter to
 * leave field validation to the server.
 */
package io.mvproxy.openapi;
