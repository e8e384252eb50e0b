/** mvproxy openapi module. */
package io.mvproxy.openapi;
