/**
 * The protected resource as a real store: a separate redis-server that keeps the written
 * values (durably: it runs with an fsynced append-only file, so a crash does not make it
 * forget the highest token it accepted, or fencing would mean nothing after a restart).
 *
 * - `unfenced`: every write is accepted (appended to the lock's list of values).
 * - `fenced`: one server-side Lua script atomically compares the presented token with the
 *   highest accepted so far for that lock and rejects a lower one; an equal token is accepted
 *   (one holder writes several times); a write without a token is rejected. Tokens are
 *   compared as decimal strings (Lua numbers are doubles; etcd revisions are int64).
 * Both answer an accepted write with its apply sequence number (history field `seq`): an INCR
 * of a per-lock counter in the same script as the write, so the order is the order the server
 * applied them in (scripts run atomically, one at a time).
 * The same semantics as the simulator's resource (src/sim/servers/resource.ts).
 */
import type { Redis } from "ioredis";
import type {
  CallOptions,
  CallResult,
  ResourceApi,
  ResourceWrite,
  ResourceWriteResult,
} from "../../env/env.js";
import { callWithDeadline } from "./call.js";
import { classifyRedisError } from "./redis.js";

export const RESOURCE_NODE = "resource";

export function resourceKeys(lock: string): { values: string; highest: string; seq: string } {
  return {
    values: `lockcheck:resource:${lock}:values`,
    highest: `lockcheck:resource:${lock}:highest`,
    seq: `lockcheck:resource:${lock}:seq`,
  };
}

// KEYS[1] values list, KEYS[2] highest token, KEYS[3] apply sequence; ARGV[1] value, ARGV[2]
// token (decimal digits). Returns the write's apply sequence number, or 0 if rejected.
const FENCED_WRITE = `
local top = redis.call("GET", KEYS[2])
local t = ARGV[2]
if t == "" then return 0 end
if top then
  if #t < #top or (#t == #top and t < top) then return 0 end
end
redis.call("SET", KEYS[2], t)
redis.call("RPUSH", KEYS[1], ARGV[1])
return redis.call("INCR", KEYS[3])`;

// KEYS[1] values list, KEYS[2] apply sequence; ARGV[1] value. Returns the apply sequence number.
const UNFENCED_WRITE = `
redis.call("RPUSH", KEYS[1], ARGV[1])
return redis.call("INCR", KEYS[2])`;

const TOKEN_DIGITS = /^(0|[1-9][0-9]*)$/;

export function redisResourceApi(conn: Redis, fenced: boolean, defaultTimeoutMs: number): ResourceApi {
  return {
    write(w: ResourceWrite, opts?: CallOptions): Promise<CallResult<ResourceWriteResult>> {
      const keys = resourceKeys(w.lock);
      return callWithDeadline(
        RESOURCE_NODE,
        opts?.timeoutMs ?? defaultTimeoutMs,
        async () => {
          if (!fenced) {
            const seq = await conn.eval(UNFENCED_WRITE, 2, keys.values, keys.seq, w.value);
            return { accepted: true, seq: BigInt(seq as number) };
          }
          // No token (or a negative one) is sent as "": the script rejects it.
          const token = w.token === null ? "" : w.token.toString();
          const r = await conn.eval(
            FENCED_WRITE,
            3,
            keys.values,
            keys.highest,
            keys.seq,
            w.value,
            TOKEN_DIGITS.test(token) ? token : "",
          );
          const seq = BigInt(r as number);
          return seq > 0n ? { accepted: true, seq } : { accepted: false };
        },
        (e) => classifyRedisError(RESOURCE_NODE, e),
      );
    },
  };
}
