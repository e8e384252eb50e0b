package io.mvproxy.node.ingress;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;
import io.vertx.core.net.HostAndPort;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Answers to {@code HEAD} requests carry the head of the {@code GET} answer and no body, on HTTP/1.1 and HTTP/2
 * alike, whatever the handler writes: Go's {@code net/http} discards a HEAD handler's body writes and, when the
 * handler wrote its body in one piece and set no {@code Content-Length}, sends that body's length
 * ({@code net/http/server.go chunkWriter.writeHeader}, {@code h2_bundle.go writeChunk}). Vert.x 5.0's HTTP/2 response
 * writes the body of a HEAD answer as DATA frames, which a client takes for a malformed response and resets the
 * stream ({@code curl -I} exits 92); its HTTP/1.1 response drops the body but sends no length. Every handler in the
 * chain writes through {@link HttpServerRequest#response()}, so the request is wrapped once, before the router.
 */
public final class HeadResponses {
  private HeadResponses() {
  }

  /**
   * @param req a request as the server hands it over
   * @return {@code req} itself unless it is a HEAD request; then the same request whose {@code response()} writes the
   *     head only
   */
  public static HttpServerRequest wrap(HttpServerRequest req) {
    if (req.method() != HttpMethod.HEAD || !(req instanceof HttpServerRequestInternal internal)) {
      return req;
    }
    return new HeadRequest(internal);
  }

  /** The request: everything delegated but {@link #response()}. */
  private static final class HeadRequest extends HttpServerRequestWrapper {
    private final HeadResponse response;

    HeadRequest(HttpServerRequestInternal delegate) {
      super(delegate);
      this.response = new HeadResponse(delegate.response());
    }

    @Override
    public HttpServerResponse response() {
      return response;
    }
  }

  /**
   * A response whose body writes are discarded: {@code end(body)} with nothing written before sets
   * {@code Content-Length} to the body's length (when the handler set none and the status allows a body) and ends
   * with the head alone; {@code write(chunk)} sends the head on the first chunk and drops the chunks.
   */
  static final class HeadResponse implements HttpServerResponse {
    private final HttpServerResponse delegate;
    private boolean streamed;

    HeadResponse(HttpServerResponse delegate) {
      this.delegate = delegate;
    }

    private Future<Void> discard() {
      if (!delegate.headWritten()) {
        streamed = true;
        return delegate.writeHead();
      }
      return Future.succeededFuture();
    }

    private Future<Void> endWith(int length) {
      int status = delegate.getStatusCode();
      boolean bodyAllowed = !(status >= 100 && status < 200) && status != 204 && status != 304;
      if (!streamed && !delegate.headWritten() && length > 0 && bodyAllowed
          && !delegate.headers().contains(HttpHeaders.CONTENT_LENGTH)
          && !delegate.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
        delegate.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(length));
      }
      return delegate.end();
    }

    @Override
    public Future<Void> write(Buffer data) {
      return discard();
    }

    @Override
    public Future<Void> write(String chunk, String enc) {
      return discard();
    }

    @Override
    public Future<Void> write(String chunk) {
      return discard();
    }

    @Override
    public Future<Void> end(Buffer chunk) {
      return endWith(chunk.length());
    }

    @Override
    public Future<Void> end(String chunk) {
      return endWith(chunk.getBytes(StandardCharsets.UTF_8).length);
    }

    @Override
    public Future<Void> end(String chunk, String enc) {
      return endWith(chunk.getBytes(Charset.forName(enc)).length);
    }

    @Override
    public Future<Void> end() {
      return delegate.end();
    }

    @Override
    public HttpServerResponse exceptionHandler(Handler<Throwable> handler) {
      delegate.exceptionHandler(handler);
      return this;
    }

    @Override
    public HttpServerResponse setWriteQueueMaxSize(int maxSize) {
      delegate.setWriteQueueMaxSize(maxSize);
      return this;
    }

    @Override
    public boolean writeQueueFull() {
      return delegate.writeQueueFull();
    }

    @Override
    public HttpServerResponse drainHandler(Handler<Void> handler) {
      delegate.drainHandler(handler);
      return this;
    }

    @Override
    public int getStatusCode() {
      return delegate.getStatusCode();
    }

    @Override
    public HttpServerResponse setStatusCode(int statusCode) {
      delegate.setStatusCode(statusCode);
      return this;
    }

    @Override
    public String getStatusMessage() {
      return delegate.getStatusMessage();
    }

    @Override
    public HttpServerResponse setStatusMessage(String statusMessage) {
      delegate.setStatusMessage(statusMessage);
      return this;
    }

    @Override
    public HttpServerResponse setChunked(boolean chunked) {
      delegate.setChunked(chunked);
      return this;
    }

    @Override
    public boolean isChunked() {
      return delegate.isChunked();
    }

    @Override
    public MultiMap headers() {
      return delegate.headers();
    }

    @Override
    public HttpServerResponse putHeader(String name, String value) {
      delegate.putHeader(name, value);
      return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, CharSequence value) {
      delegate.putHeader(name, value);
      return this;
    }

    @Override
    public HttpServerResponse putHeader(String name, Iterable<String> values) {
      delegate.putHeader(name, values);
      return this;
    }

    @Override
    public HttpServerResponse putHeader(CharSequence name, Iterable<CharSequence> values) {
      delegate.putHeader(name, values);
      return this;
    }

    @Override
    public MultiMap trailers() {
      return delegate.trailers();
    }

    @Override
    public HttpServerResponse putTrailer(String name, String value) {
      delegate.putTrailer(name, value);
      return this;
    }

    @Override
    public HttpServerResponse putTrailer(CharSequence name, CharSequence value) {
      delegate.putTrailer(name, value);
      return this;
    }

    @Override
    public HttpServerResponse putTrailer(String name, Iterable<String> values) {
      delegate.putTrailer(name, values);
      return this;
    }

    @Override
    public HttpServerResponse putTrailer(CharSequence name, Iterable<CharSequence> value) {
      delegate.putTrailer(name, value);
      return this;
    }

    @Override
    public HttpServerResponse closeHandler(Handler<Void> handler) {
      delegate.closeHandler(handler);
      return this;
    }

    @Override
    public HttpServerResponse endHandler(Handler<Void> handler) {
      delegate.endHandler(handler);
      return this;
    }

    @Override
    public Future<Void> writeHead() {
      return delegate.writeHead();
    }

    @Override
    public Future<Void> writeContinue() {
      return delegate.writeContinue();
    }

    @Override
    public Future<Void> writeEarlyHints(MultiMap headers) {
      return delegate.writeEarlyHints(headers);
    }

    @Override
    public Future<Void> sendFile(String filename, long offset, long length) {
      return delegate.sendFile(filename, offset, length);
    }

    @Override
    public Future<Void> sendFile(FileChannel channel, long offset, long length) {
      return delegate.sendFile(channel, offset, length);
    }

    @Override
    public Future<Void> sendFile(RandomAccessFile file, long offset, long length) {
      return delegate.sendFile(file, offset, length);
    }

    @Override
    public boolean ended() {
      return delegate.ended();
    }

    @Override
    public boolean closed() {
      return delegate.closed();
    }

    @Override
    public boolean headWritten() {
      return delegate.headWritten();
    }

    @Override
    public HttpServerResponse headersEndHandler(Handler<Void> handler) {
      delegate.headersEndHandler(handler);
      return this;
    }

    @Override
    public HttpServerResponse bodyEndHandler(Handler<Void> handler) {
      delegate.bodyEndHandler(handler);
      return this;
    }

    @Override
    public long bytesWritten() {
      return delegate.bytesWritten();
    }

    @Override
    public int streamId() {
      return delegate.streamId();
    }

    @Override
    public Future<HttpServerResponse> push(HttpMethod method, HostAndPort authority, String path, MultiMap headers) {
      return delegate.push(method, authority, path, headers);
    }

    @Override
    public Future<Void> reset(long code) {
      return delegate.reset(code);
    }

    @Override
    public Future<Void> writeCustomFrame(int type, int flags, Buffer payload) {
      return delegate.writeCustomFrame(type, flags, payload);
    }

    @Override
    public HttpServerResponse addCookie(Cookie cookie) {
      delegate.addCookie(cookie);
      return this;
    }

    @Override
    public Cookie removeCookie(String name, boolean invalidate) {
      return delegate.removeCookie(name, invalidate);
    }

    @Override
    public Set<Cookie> removeCookies(String name, boolean invalidate) {
      return delegate.removeCookies(name, invalidate);
    }

    @Override
    public Cookie removeCookie(String name, String domain, String path, boolean invalidate) {
      return delegate.removeCookie(name, domain, path, invalidate);
    }
  }
}
