/**
 * One op → one JSONL line (without the newline). Keys come in a fixed order so that files
 * diff well: index, time, process, type, f, lock, grant, token, accepted, seq, node, value, error,
 * then any extra keys an op carries, in their own order.
 *
 * Tokens (and a write's `seq`) are BigInts in memory. A token that is a safe integer is written as a JSON number;
 * a larger one as a decimal string, so that no JSON reader rounds it. BigInts inside `value`
 * are written as decimal strings (and read back as strings).
 */
import type { Op } from "./op.js";

const ORDERED_KEYS = ["lock", "grant", "token", "accepted", "seq", "node", "value", "error"] as const;
const KNOWN_KEYS = new Set<string>(["index", "time", "process", "type", "f", ...ORDERED_KEYS]);

/** A token as it appears in JSON: a number when exactly representable, else a decimal string. */
export function tokenToJson(token: bigint): number | string {
  return token >= BigInt(Number.MIN_SAFE_INTEGER) && token <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(token)
    : token.toString();
}

function bigintAsString(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}

export function serializeOp(op: Op): string {
  const src = op as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {
    index: op.index,
    time: op.time,
    process: op.process,
    type: op.type,
    f: op.f,
  };
  for (const key of ORDERED_KEYS) {
    const v = src[key];
    if (v !== undefined) out[key] = key === "token" || key === "seq" ? tokenToJson(v as bigint) : v;
  }
  let nested = (typeof op.value === "object" && op.value !== null) || typeof op.value === "bigint";
  for (const key in src) {
    if (KNOWN_KEYS.has(key) || src[key] === undefined) continue;
    out[key] = src[key];
    nested = true;
  }
  return nested ? JSON.stringify(out, bigintAsString) : JSON.stringify(out);
}
