/**
 * A tiny builder for hand-written histories in tests: times in milliseconds, indices assigned
 * in call order. Completions repeat the invoke's lock (and grant for writes), as recorders do.
 */
import type { ClientId, NemesisF, Op } from "../../src/history/op.js";

const NS_PER_MS = 1_000_000;

export interface Builder {
  readonly ops: Op[];
  acquire(ms: number, p: ClientId, lock?: string): number;
  /** An acquire invoke that says the lease time it asks for. */
  acquireFor(ms: number, p: ClientId, ttlMs: number, lock?: string): number;
  granted(ms: number, p: ClientId, grant: string, token?: bigint, lock?: string): number;
  denied(ms: number, p: ClientId, lock?: string): number;
  acquireInfo(ms: number, p: ClientId, lock?: string): number;
  write(ms: number, p: ClientId, grant: string, token?: bigint, lock?: string): number;
  /** Completes a write `ok`; `accepted` says whether the resource took it. */
  wrote(ms: number, p: ClientId, grant: string, accepted: boolean, token?: bigint, lock?: string): number;
  writeInfo(ms: number, p: ClientId, grant: string, token?: bigint, lock?: string): number;
  release(ms: number, p: ClientId, grant: string, lock?: string): number;
  released(ms: number, p: ClientId, grant: string, lock?: string): number;
  nemesis(ms: number, f: NemesisF, node: string, type?: "invoke" | "info"): number;
}

export function build(): Builder {
  const ops: Op[] = [];
  const push = (op: Record<string, unknown>): number => {
    const index = ops.length;
    ops.push({ index, ...op } as unknown as Op);
    return index;
  };
  const t = (ms: number) => Math.round(ms * NS_PER_MS);
  const tok = (token: bigint | undefined) => (token === undefined ? {} : { token });
  return {
    ops,
    acquire: (ms, p, lock = "L") => push({ time: t(ms), process: p, type: "invoke", f: "acquire", lock }),
    acquireFor: (ms, p, ttlMs, lock = "L") =>
      push({ time: t(ms), process: p, type: "invoke", f: "acquire", lock, ttlMs }),
    granted: (ms, p, grant, token, lock = "L") =>
      push({ time: t(ms), process: p, type: "ok", f: "acquire", lock, grant, ...tok(token) }),
    denied: (ms, p, lock = "L") =>
      push({ time: t(ms), process: p, type: "fail", f: "acquire", lock, error: "held" }),
    acquireInfo: (ms, p, lock = "L") =>
      push({ time: t(ms), process: p, type: "info", f: "acquire", lock, error: "timeout" }),
    write: (ms, p, grant, token, lock = "L") =>
      push({ time: t(ms), process: p, type: "invoke", f: "write", lock, grant, ...tok(token) }),
    wrote: (ms, p, grant, accepted, token, lock = "L") =>
      push({ time: t(ms), process: p, type: "ok", f: "write", lock, grant, ...tok(token), accepted }),
    writeInfo: (ms, p, grant, token, lock = "L") =>
      push({
        time: t(ms),
        process: p,
        type: "info",
        f: "write",
        lock,
        grant,
        ...tok(token),
        error: "timeout",
      }),
    release: (ms, p, grant, lock = "L") =>
      push({ time: t(ms), process: p, type: "invoke", f: "release", lock, grant }),
    released: (ms, p, grant, lock = "L") =>
      push({ time: t(ms), process: p, type: "ok", f: "release", lock, grant }),
    nemesis: (ms, f, node, type = "info") => push({ time: t(ms), process: "nemesis", type, f, node }),
  };
}
