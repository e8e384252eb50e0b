/** A sample extension API server. */
package io.mvproxy.example.wardle;
