/**
 * `RedisApi` over a real redis-server, through ioredis. One connection per client per node
 * (through that link's proxy), no offline queue and no resending: a command either goes out
 * on a live connection now, or fails at once as `unreachable` (it certainly did not run).
 */
import { Redis } from "ioredis";
import type { CallError, CallOptions, CallResult, RedisApi } from "../../env/env.js";
import { LOOPBACK } from "../cluster/net.js";
import { callWithDeadline, errorText } from "./call.js";

const DEL_IF_EQUALS = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;
/** SET KEYS[1] ARGV[1] NX PX ARGV[2], and if set, INCR KEYS[2] (as a string: exact); nil if held. */
const SET_NX_PX_INCR = `if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return tostring(redis.call("INCR", KEYS[2])) else return false end`;

/** An ioredis connection configured for fault injection (see the module comment). */
export function connectRedis(port: number): Redis {
  const conn = new Redis({
    host: LOOPBACK,
    port,
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    enableReadyCheck: false,
    // Integer replies as strings, so INCR tokens stay exact past 2^53.
    stringNumbers: true,
    connectTimeout: 2000,
    // Reconnect quickly and forever: links come back when a partition heals.
    retryStrategy: () => 50,
  });
  // Connection errors are expected under faults; each call reports its own outcome.
  conn.on("error", () => {});
  return conn;
}

/** Errors raised before the command was written to a live socket. */
function notSent(e: unknown): boolean {
  const text = errorText(e);
  return (
    text.includes("enableOfflineQueue") ||
    text.includes("Stream isn't writeable") ||
    text.includes("ECONNREFUSED")
  );
}

/** A reply error (e.g. "-ERR ...", "-LOADING") means the server answered and did not run it. */
function isReplyError(e: unknown): boolean {
  return e instanceof Error && e.name === "ReplyError";
}

export function classifyRedisError(node: string, e: unknown): CallError {
  const detail = errorText(e);
  if (notSent(e) || isReplyError(e)) return { kind: "unreachable", node, detail };
  return { kind: "timeout", node, detail };
}

export function redisApi(node: string, conn: Redis, defaultTimeoutMs: number): RedisApi {
  const run = <T>(opts: CallOptions | undefined, call: () => Promise<T>): Promise<CallResult<T>> =>
    callWithDeadline(node, opts?.timeoutMs ?? defaultTimeoutMs, call, (e) => classifyRedisError(node, e));
  return {
    node,
    setNxPx: (key, value, ttlMs, opts) =>
      run(
        opts,
        async () => (await conn.set(key, value, "PX", Math.max(1, Math.round(ttlMs)), "NX")) === "OK",
      ),
    delIfEquals: (key, value, opts) =>
      run(opts, async () => Number(await conn.eval(DEL_IF_EQUALS, 1, key, value)) === 1),
    incr: (key, opts) => run(opts, async () => BigInt(await conn.incr(key))),
    setNxPxIncr: (key, value, ttlMs, counterKey, opts) =>
      run(opts, async () => {
        const token = await conn.eval(
          SET_NX_PX_INCR,
          2,
          key,
          counterKey,
          value,
          Math.max(1, Math.round(ttlMs)),
        );
        return token === null ? null : BigInt(token as string);
      }),
  };
}
