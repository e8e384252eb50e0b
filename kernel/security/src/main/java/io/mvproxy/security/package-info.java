/** mvproxy security module. */
package io.mvproxy.security;
