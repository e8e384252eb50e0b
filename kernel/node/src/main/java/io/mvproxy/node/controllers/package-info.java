/** The node's side of the controller manager: its identities (loopback tokens), verticle and metrics. */
package io.mvproxy.node.controllers;
