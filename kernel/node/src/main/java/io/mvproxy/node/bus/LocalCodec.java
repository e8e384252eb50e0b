package io.mvproxy.node.bus;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Event-bus codec for an immutable message type sent only inside one node: the receiver gets the very instance that
 * was sent (no copy, no JSON), typed. Messages that cross nodes stay JSON on the wire ({@link Announcements}), so
 * nodes of different versions keep understanding each other during an upgrade.
 *
 * @param <T> the immutable message type
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {
  private final Class<T> type;

  private LocalCodec(Class<T> type) {
    this.type = type;
  }

  /**
   * Registers the codec as the default one of {@code type} on the node's event bus (once per Vert.x instance).
   *
   * @param bus  the event bus
   * @param type the immutable message type
   * @param <T>  the type
   */
  public static <T> void register(EventBus bus, Class<T> type) {
    bus.registerDefaultCodec(type, new LocalCodec<>(type));
  }

  /** @throws UnsupportedOperationException always: the type is never sent to another node */
  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(type.getName() + " is a node-local event-bus message");
  }

  /** @throws UnsupportedOperationException always: the type is never received from another node */
  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(type.getName() + " is a node-local event-bus message");
  }

  /** @return the same instance (immutable) */
  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return "mvproxy.local." + type.getName();
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
