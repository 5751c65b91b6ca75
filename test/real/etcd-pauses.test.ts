/**
 * Pauses of a real etcd:lock client mean what they mean in the simulator.
 *
 * At `acquire-sent` the request it just made is on the wire (the transaction goes through,
 * and the frozen client holds the lock), and once it runs again it reads the reply that came
 * while it was stopped before the call's deadline fires. Two things broke that before:
 * - the client stopped itself a tick after the call, while etcd3 had not yet written the first
 *   transaction to a member of its fresh client (a gRPC channel connects on its first call);
 * - stopped in an I/O callback, Node on resume ran the timers that came due first, and gRPC's
 *   own deadline beat the reply.
 * sim:consensus found a stale write on this shape of schedule that etcd:lock showed on none of
 * 4 runs (2 by hand, 2 in bench:sim-to-real); it needed both the warm-up (adapters/etcd.ts
 * `warmEtcd`) and the stop from a timer callback (client/checkpoint.ts): with the warm-up
 * alone 0 of 3 runs, with the timer stop alone 0 of 4.
 *
 * A pause inside a call (`pause-in-call`, afterMs 0) stops the client from a setImmediate
 * callback, where on resume Node also runs due timers first: gRPC's deadline, as short as
 * lockcheck's own, failed the lease grant whose reply was waiting (2 of 2 runs), where the
 * simulator grants it. gRPC's deadline is now well past lockcheck's (adapters/etcd.ts).
 */
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/checkers/verdict.js";
import { isNemesisOp, type Op } from "../../src/history/op.js";
import { serializeOp } from "../../src/history/serialize.js";
import { runAndCheck } from "../../src/runner/execute.js";
import { findTarget } from "../../src/targets/index.js";
import { missingBinaries, schedule } from "./helpers.js";

const missing = missingBinaries(["etcd"]);

function target(name: string) {
  const t = findTarget(name);
  if (!t.ok) throw new Error(t.error.message);
  return t.value;
}

/**
 * Client 0 is frozen right after sending its first create-if-absent, for 4 s (lease: 1 s).
 * Client 1 has three tries to take the lock meanwhile: on a loaded CI runner one try of
 * client 1 was denied (a 100 ms call timing out, or the lease outliving a leader change past
 * its two-TTL wait), and the run had no second holder to be stale against.
 */
const pausedAfterSending = schedule(
  "etcd:lock",
  "unfenced",
  { servers: 3, ttlMs: 1000, callTimeoutMs: 100, horizonMs: 8000, latencyMs: { min: 1, max: 5 } },
  [
    { id: 0, cycles: [{ thinkMs: 0, holdMs: 20, writes: 1 }] },
    {
      id: 1,
      cycles: [
        { thinkMs: 300, holdMs: 0, writes: 1 },
        { thinkMs: 50, holdMs: 0, writes: 1 },
        { thinkMs: 50, holdMs: 0, writes: 1 },
      ],
    },
  ],
  [{ kind: "pause-at", client: 0, checkpoint: "acquire-sent", occurrence: 0, durationMs: 4000 }],
);

const REAL_ATTEMPTS = 3;

/** Client 0 was granted the lock (its reply read before the deadline, not `info` with a timeout) and wrote stale. */
function staleAfterGrantReadOnResume(ops: readonly Op[], verdicts: readonly Verdict[]): boolean {
  const grant = ops.find((op) => op.process === 0 && op.f === "acquire" && op.type !== "invoke");
  const granted = grant !== undefined && !isNemesisOp(grant) && grant.type === "ok" && grant.grant === "0:0";
  return granted && verdicts.find((v) => v.checker === "stale-write")?.valid === false;
}

/** The history's completions and nemesis ops, one per line: what a failed assertion shows. */
function completions(ops: readonly Op[]): string {
  return ops
    .filter((op) => op.type !== "invoke" || op.process === "nemesis")
    .map(serializeOp)
    .join("\n");
}

/** Client 0 alone, frozen right after it invoked acquire (its lease grant on the way), for 600 ms (lease: 2 s). */
const pausedInAcquire = schedule(
  "etcd:lock",
  "unfenced",
  { servers: 3, ttlMs: 2000, callTimeoutMs: 100, horizonMs: 5000, latencyMs: { min: 1, max: 5 } },
  [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 1 }] }],
  [{ kind: "pause-in-call", client: 0, call: "acquire", occurrence: 0, afterMs: 0, durationMs: 600 }],
);

describe.skipIf(missing.length > 0)("pauses of a real etcd client", () => {
  it("the frozen client's transaction lands, its grant is read on resume, and its write is stale, as in sim:consensus", async () => {
    const sim = await runAndCheck(target("sim:consensus"), {
      ...pausedAfterSending,
      target: "sim:consensus",
    });
    expect(staleAfterGrantReadOnResume(sim.ops, sim.verdicts), completions(sim.ops)).toBe(true);
    // On real servers up to 3 attempts, as `lockcheck run --attempts` gives a user: with the
    // schedule above it still failed once in about a dozen runs here, on a machine loaded by
    // other work, and that history was not kept. Every failed attempt is shown.
    const failed: string[] = [];
    for (let attempt = 1; attempt <= REAL_ATTEMPTS; attempt++) {
      const real = await runAndCheck(target("etcd:lock"), pausedAfterSending);
      if (staleAfterGrantReadOnResume(real.ops, real.verdicts)) break;
      failed.push(`attempt ${attempt}:\n${completions(real.ops)}`);
      process.stderr.write(`etcd-pauses: real attempt ${attempt} of ${REAL_ATTEMPTS} did not show it\n`);
    }
    expect(failed.length, failed.join("\n\n")).toBeLessThan(REAL_ATTEMPTS);
  }, 120_000);

  it("paused in its acquire: the lease grant's reply that came meanwhile is read on resume and the lock granted, as in sim:consensus", async () => {
    const sim = await runAndCheck(target("sim:consensus"), { ...pausedInAcquire, target: "sim:consensus" });
    const real = await runAndCheck(target("etcd:lock"), pausedInAcquire);
    for (const run of [sim, real]) {
      const paused = run.ops.find((op) => op.process === "nemesis" && op.f === "pause");
      expect(paused?.value).toMatchObject({ call: "acquire", inCall: true });
      const grant = run.ops.find((op) => op.process === 0 && op.f === "acquire" && op.type !== "invoke");
      expect(grant).toMatchObject({ type: "ok", grant: "0:0" });
    }
  }, 60_000);
});
