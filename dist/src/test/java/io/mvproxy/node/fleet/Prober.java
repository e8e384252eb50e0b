package io.mvproxy.node.fleet;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Asks one node for one path over and over from a background thread, from before the node listens, and records
 * every answer with its time: status codes, or {@link #NO_CONNECTION} while nothing accepts the connection.
 */
public final class Prober implements AutoCloseable {
  /** Recorded when the connection could not be made (node not listening yet) or the request failed. */
  public static final int NO_CONNECTION = -1;

  /**
   * One answer.
   *
   * @param atMs    epoch ms when the answer arrived
   * @param status  HTTP status or {@link #NO_CONNECTION}
   * @param message the Status message of a 4xx/5xx answer, else ""
   */
  public record Answer(long atMs, int status, String message) {
  }

  private final List<Answer> answers = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean stop;

  /**
   * Starts probing at once.
   *
   * @param client  an admin client
   * @param url     the node's base URL
   * @param path    the path to GET
   * @param pauseMs pause between answers
   */
  public Prober(HttpsClient client, String url, String path, long pauseMs) {
    thread = new Thread(() -> {
      while (!stop) {
        try {
          HttpsClient.Resp r = client.get(url, path);
          String msg = "";
          if (r.status() >= 400) {
            try {
              msg = r.json().getString("message", "");
            } catch (RuntimeException e) {
              msg = r.text();
            }
          }
          answers.add(new Answer(System.currentTimeMillis(), r.status(), msg));
        } catch (Exception e) {
          answers.add(new Answer(System.currentTimeMillis(), NO_CONNECTION, String.valueOf(e)));
        }
        try {
          // the prober's own request pace (a traffic generator, as a client polling a node), not a wait for a
          // condition: the tests wait on its answers through FleetTest.await
          Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "prober " + url + path);
    thread.setDaemon(true);
    thread.start();
  }

  /** @return the answers so far, in order */
  public List<Answer> answers() {
    return new ArrayList<>(answers);
  }

  /** @return time of the first answer with a status (the first accepted connection), or -1 */
  public long firstAnswerAt() {
    return answers.stream().filter(a -> a.status() != NO_CONNECTION).mapToLong(Answer::atMs).findFirst().orElse(-1);
  }

  /** @param status a status @return time of the first answer with it, or -1 */
  public long firstAt(int status) {
    return answers.stream().filter(a -> a.status() == status).mapToLong(Answer::atMs).findFirst().orElse(-1);
  }

  /** @param status a status @param fromMs epoch ms @return answers with that status at or after {@code fromMs} */
  public List<Answer> with(int status, long fromMs) {
    return answers.stream().filter(a -> a.status() == status && a.atMs() >= fromMs).toList();
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.interrupt();
    thread.join(20_000);
  }
}
