/**
 * Turning a real client library call into a `CallResult`, honestly: our own deadline per call
 * (the library's request may still be in flight, and may still take effect: `timeout`), and
 * a classification of library errors into "certainly did not happen" (`unreachable`) versus
 * "may have happened" (`timeout`). When unsure, say `timeout`: an `info` in the history is
 * always safe for the checkers, a wrong `fail` is not.
 */
import type { CallError, CallResult } from "../../env/env.js";

/**
 * Runs `call` with a deadline; `classify` maps a thrown error to a result (or a CallError).
 *
 * When the deadline timer fires, the timeout is declared only after one more turn of the
 * event loop's I/O poll (setImmediate runs after it): a reply already sitting in the socket
 * when the deadline is checked still counts. This matters after a pause (SIGSTOP): on resume
 * Node runs expired timers before it reads sockets, so without this grace every reply that
 * arrived during the pause would be reported as a timeout, and "paused while the replies
 * were in flight" could never be observed.
 */
export async function callWithDeadline<T>(
  node: string,
  timeoutMs: number,
  call: () => Promise<T>,
  classify: (e: unknown) => CallResult<T> | CallError,
): Promise<CallResult<T>> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<CallResult<T>>((resolve) => {
    timer = setTimeout(
      () => setImmediate(() => resolve({ ok: false, error: { kind: "timeout", node } })),
      timeoutMs,
    );
  });
  const attempt = call().then(
    (value): CallResult<T> => ({ ok: true, value }),
    (e: unknown): CallResult<T> => {
      const r = classify(e);
      return "kind" in r ? { ok: false, error: r } : r;
    },
  );
  try {
    return await Promise.race([attempt, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
