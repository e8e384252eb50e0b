/** The mvproxy node runtime. */
package io.mvproxy.node;
