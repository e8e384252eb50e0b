/** mvproxy discovery module. */
package io.mvproxy.discovery;
