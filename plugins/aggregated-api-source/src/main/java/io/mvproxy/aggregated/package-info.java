/** The aggregated-API (APIService) source. */
package io.mvproxy.aggregated;
