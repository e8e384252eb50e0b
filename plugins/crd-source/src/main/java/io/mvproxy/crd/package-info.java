/** CRD source plugin. */
package io.mvproxy.crd;
