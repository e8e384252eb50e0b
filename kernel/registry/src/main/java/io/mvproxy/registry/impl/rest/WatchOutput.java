package io.mvproxy.registry.impl.rest;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;

/**
 * Where a watch writes its events: a chunked HTTP/1.1 response (one JSON line per event), or a WebSocket (one text
 * message per event), as kube-apiserver offers both ({@code apiserver/pkg/endpoints/handlers/watch.go}
 * {@code ServeHTTP} / {@code HandleWS}; fabric8 tries the WebSocket first).
 */
interface WatchOutput {
  /** Sends the response head (HTTP 200, chunked); nothing for a WebSocket. */
  void open();

  /** Writes one event line (JSON + newline). */
  void write(Buffer line);

  /** @return true when more than {@code maxBytes} wait to be sent */
  boolean full();

  /** @return true once the peer went away or the output was ended */
  boolean closed();

  /** Calls {@code r} once when the connection closes. */
  void onClose(Runnable r);

  /** Ends the stream. */
  void end();

  /** @return an output on a chunked HTTP response with a write queue of {@code maxBytes} */
  static WatchOutput http(HttpServerResponse resp, int maxBytes) {
    return new WatchOutput() {
      @Override
      public void open() {
        resp.setWriteQueueMaxSize(maxBytes);
        resp.setStatusCode(200).putHeader("Content-Type", Responses.JSON).setChunked(true);
        resp.writeHead();
      }

      @Override
      public void write(Buffer line) {
        resp.write(line);
      }

      @Override
      public boolean full() {
        return resp.writeQueueFull();
      }

      @Override
      public boolean closed() {
        return resp.ended() || resp.closed();
      }

      @Override
      public void onClose(Runnable r) {
        resp.closeHandler(v -> r.run());
        resp.exceptionHandler(t -> r.run());
      }

      @Override
      public void end() {
        if (!closed()) {
          resp.end();
        }
      }
    };
  }

  /** @return an output on an accepted WebSocket with a write queue of {@code maxBytes} */
  static WatchOutput webSocket(ServerWebSocket ws, int maxBytes) {
    ws.setWriteQueueMaxSize(maxBytes);
    boolean[] done = new boolean[1];
    return new WatchOutput() {
      @Override
      public void open() {
      }

      @Override
      public void write(Buffer line) {
        ws.writeTextMessage(line.toString());
      }

      @Override
      public boolean full() {
        return ws.writeQueueFull();
      }

      @Override
      public boolean closed() {
        return done[0] || ws.isClosed();
      }

      @Override
      public void onClose(Runnable r) {
        ws.closeHandler(v -> {
          done[0] = true;
          r.run();
        });
        ws.exceptionHandler(t -> r.run());
      }

      @Override
      public void end() {
        if (!closed()) {
          done[0] = true;
          ws.close();
        }
      }
    };
  }
}
