/** Loopback networking helpers for starting servers: free ports and readiness probes. */
import { createServer, Socket } from "node:net";

export const LOOPBACK = "127.0.0.1";

/**
 * A port that was free on 127.0.0.1 a moment ago (the OS picks it). Another process may take
 * it before the server binds, so callers retry a failed start with a fresh port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, LOOPBACK, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Sends a Redis PING over a raw socket; true on "+PONG" within `timeoutMs`. */
export function redisPing(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    let buf = "";
    const finish = (answer: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    sock.once("error", () => finish(false));
    sock.setEncoding("utf8");
    sock.on("data", (d: string) => {
      buf += d;
      if (buf.includes("\r\n")) finish(buf.startsWith("+PONG"));
    });
    sock.connect(port, LOOPBACK, () => sock.write("PING\r\n"));
  });
}

/** POSTs JSON to a loopback HTTP endpoint; the parsed reply, or null on any failure or timeout. */
export async function postJson(url: string, body: unknown, timeoutMs: number): Promise<unknown> {
  try {
    const res = await fetch(url, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return null;
    return (await res.json()) as unknown;
  } catch {
    return null;
  }
}

/** GETs JSON from a loopback HTTP endpoint; null on any failure or timeout. */
export async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    return (await res.json()) as unknown;
  } catch {
    return null;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` every `intervalMs` until it returns true, `giveUp` returns a reason to stop
 * (e.g. the server exited), or `timeoutMs` passes. Returns null on success, else why not.
 */
export async function waitUntil(
  probe: () => Promise<boolean>,
  opts: { timeoutMs: number; intervalMs: number; giveUp?: () => string | null },
): Promise<string | null> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const reason = opts.giveUp?.() ?? null;
    if (reason !== null) return reason;
    if (await probe()) return null;
    if (Date.now() >= deadline) return `not ready after ${opts.timeoutMs} ms`;
    await sleep(opts.intervalMs);
  }
}
