/**
 * Calls are reused once their reply arrived (rpc.ts): a call whose timeout came due while its
 * client was paused must not be, or the timeout — run after the reply on resume — would land
 * on the client's next call.
 */
import { describe, expect, it } from "vitest";
import type { CallResult, LockEnv } from "../../src/env/env.js";
import { simulate } from "../../src/sim/simulate.js";
import { probe, scheduleOf } from "./helpers.js";

describe("a reused call", () => {
  it("is never one whose timeout is still to run: the next call gets its own answer", async () => {
    const seen: { result: CallResult<unknown>; at: number }[] = [];
    const alg = probe("redis", async (env: LockEnv) => {
      // Sent at 100 ms; the reply arrives at 120 ms, while the client is paused (115–215 ms);
      // its 50 ms timeout comes due at 150 ms, also in the pause. On resume the reply is
      // handled first, then the due timeout.
      seen.push({ result: await env.redis[0]!.setNxPx("a", "x", 10_000), at: env.now() });
      seen.push({ result: await env.redis[0]!.setNxPx("b", "x", 10_000), at: env.now() });
      seen.push({ result: await env.redis[0]!.incr("n"), at: env.now() });
    });
    const s = scheduleOf({
      options: { callTimeoutMs: 50 },
      faults: [{ kind: "pause", node: "client:0", at: 115, durationMs: 100 }],
    });
    await simulate(s, alg);
    expect(seen).toEqual([
      { result: { ok: true, value: true }, at: 215 },
      { result: { ok: true, value: true }, at: 235 },
      { result: { ok: true, value: 1n }, at: 255 },
    ]);
  });
});
