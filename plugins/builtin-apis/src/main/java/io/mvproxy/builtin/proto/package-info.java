/**
 * Reading Kubernetes protobuf request bodies ({@code application/vnd.kubernetes.protobuf}, which kubectl's typed
 * clients send for built-in kinds) into the JSON form the REST handlers use.
 */
package io.mvproxy.builtin.proto;
