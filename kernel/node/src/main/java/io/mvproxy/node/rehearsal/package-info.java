/**
 * The upgrade rehearsal ({@code bin/mvproxy rehearse}): a local 3-node fleet upgraded one node at a time from the
 * "old" to the "new" plugin set under steady client traffic, once with {@code UnknownVersionInteroperabilityProxy}
 * on and once off, and the report of what the clients and the controllers suffered in each run: a Markdown table
 * ({@link io.mvproxy.node.rehearsal.Rehearsal#format}) and a self-contained HTML page
 * ({@link io.mvproxy.node.rehearsal.HtmlReport}) drawn from each run's {@link io.mvproxy.node.rehearsal.Journal}, every
 * non-2xx answer with the cause {@link io.mvproxy.node.rehearsal.Causes} attributes to it.
 */
package io.mvproxy.node.rehearsal;
