package io.mvproxy.testkit;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Checks that a wrapper of an {@link ApiSource} forwards every method of the interface, the default ones included
 * (a default method a wrapper does not override silently answers the default: readiness or change notifications of
 * the wrapped source are lost). Shared through the mvproxy-storage test-jar.
 */
public final class ApiSourceForwarding {
  private ApiSourceForwarding() {
  }

  /**
   * Calls every method of {@link ApiSource} but {@code handle} (abstract, so every wrapper implements it, and what
   * it does with a request is each wrapper's own behaviour) once on a wrapper of a fresh recording source, and
   * lists those that did not reach the wrapped source or did not answer what it answered.
   *
   * @param wrap builds the wrapper around the source given
   * @return the names of the methods not forwarded, sorted (empty when the wrapper forwards everything)
   */
  public static List<String> unforwarded(Function<ApiSource, ApiSource> wrap) {
    List<String> out = new ArrayList<>();
    Method[] methods = ApiSource.class.getMethods();
    Arrays.sort(methods, Comparator.comparing(Method::getName));
    for (Method m : methods) {
      if (m.getName().equals("handle") || java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      Set<String> called = new HashSet<>();
      Object[] answer = new Object[1];
      ApiSource recording = (ApiSource) Proxy.newProxyInstance(ApiSource.class.getClassLoader(),
          new Class<?>[] {ApiSource.class}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
              return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "recording ApiSource";
              };
            }
            called.add(method.getName());
            Object a = answer(method.getReturnType());
            if (method.getName().equals(m.getName())) {
              answer[0] = a;
            }
            return a;
          });
      ApiSource wrapper = wrap.apply(recording);
      called.clear();
      Object got;
      try {
        got = m.invoke(wrapper, arguments(m));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw new AssertionError(m.getName() + " failed on " + wrapper.getClass().getName(), e.getCause());
      }
      boolean same = m.getReturnType() == void.class || java.util.Objects.equals(answer[0], got);
      if (!called.contains(m.getName()) || !same) {
        out.add(m.getName());
      }
    }
    return out;
  }

  /** @return a distinctive answer of the recording source for a return type (never the interface's default) */
  private static Object answer(Class<?> type) {
    if (type == String.class) {
      return "recorded-name";
    } else if (type == List.class) {
      return List.of();
    } else if (type == JsonObject.class) {
      return new JsonObject().put("from", "wrapped source");
    } else if (type == boolean.class) {
      return true;
    } else if (type == Future.class) {
      return Promise.promise().future(); // pending: not the default's completed future
    } else if (type == Optional.class) {
      return Optional.of(new JsonObject().put("from", "wrapped source"));
    } else if (type == void.class) {
      return null;
    }
    throw new IllegalStateException("no recorded answer for " + type + ": extend ApiSourceForwarding.answer");
  }

  private static Object[] arguments(Method m) {
    Object[] args = new Object[m.getParameterCount()];
    Class<?>[] types = m.getParameterTypes();
    for (int i = 0; i < args.length; i++) {
      if (types[i] == GroupVersion.class) {
        args[i] = new GroupVersion("example.com", "v1");
      } else if (types[i] == Runnable.class) {
        args[i] = (Runnable) () -> { };
      } else {
        throw new IllegalStateException("no argument for " + types[i] + " of " + m.getName()
            + ": extend ApiSourceForwarding.arguments");
      }
    }
    return args;
  }
}
