/**
 * The upgrade rehearsal ({@code bin/mvproxy rehearse}): a local 3-node fleet upgraded one node at a time from the
 * "old" to the "new" plugin set under steady client traffic, once with {@code UnknownVersionInteroperabilityProxy}
 * on and once off, and the report of what the clients and the controllers suffered in each run.
 */
package io.mvproxy.node.rehearsal;
