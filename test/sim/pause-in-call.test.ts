/**
 * `pause-in-call` in the simulator: the client is paused `afterMs` after it invoked the named
 * call, by a timer of its own (so a paused client's timer waits for the resume), and the
 * pause is recorded with the call and whether it was still open. With one-way latency 10 ms,
 * a call's reply comes 20 ms after its invoke, so a pause 5 ms in lands in flight.
 */
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { redlock } from "../../src/locks/redlock.js";
import { redlockNocheck } from "../../src/locks/redlock-nocheck.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { simulate } from "../../src/sim/simulate.js";
import { pauseInAcquire, target } from "../fuzz/schedules.js";
import { completion, invocation, MS, nemesisOps, scheduleOf, setOnce } from "./helpers.js";

describe("pause-in-call (simulator)", () => {
  it("pauses the client afterMs after the invoke, while the call is in flight; its reply waits", async () => {
    const s = scheduleOf({ faults: [pauseInAcquire(5, 500)] });
    const { ops } = await simulate(s, setOnce);
    const invoked = invocation(ops, 0, "acquire").time;
    const [pause, resume] = nemesisOps(ops);
    expect([pause?.f, pause?.node, pause?.time]).toEqual(["pause", "client:0", invoked + 5 * MS]);
    expect(pause?.value).toEqual({
      call: "acquire",
      occurrence: 0,
      afterMs: 5,
      durationMs: 500,
      inCall: true,
    });
    expect(resume?.time).toBe(invoked + 505 * MS);
    // The reply arrived at +20 ms, in the pause: the call completes at the resume.
    expect(completion(ops, 0, "acquire").time).toBe(invoked + 505 * MS);
  });

  it("counts occurrences per call kind, and a pause after the call completed says so", async () => {
    const s = scheduleOf({
      clients: [{ id: 0, cycles: Array.from({ length: 4 }, () => ({ thinkMs: 100, holdMs: 0, writes: 0 })) }],
      faults: [pauseInAcquire(50, 10, 2)],
    });
    const { ops } = await simulate(s, setOnce);
    const third = invocation(ops, 0, "acquire", 2).time;
    const [pause] = nemesisOps(ops);
    expect(pause?.time).toBe(third + 50 * MS);
    expect(pause?.value).toMatchObject({ occurrence: 2, inCall: false });
  });

  it("a client already paused when the timer comes due is paused again once it resumes", async () => {
    // Timed pause [105, 305) covers +5 ms after the acquire invoked at 100 ms.
    const s = scheduleOf({
      faults: [{ kind: "pause", node: "client:0", at: 102, durationMs: 200 }, pauseInAcquire(5, 100)],
    });
    const { ops } = await simulate(s, setOnce);
    const pauses = nemesisOps(ops).filter((o) => o.f === "pause");
    expect(pauses.map((o) => o.time)).toEqual([102 * MS, 302 * MS]);
  });

  it("redlock-nocheck: a pause during acquisition longer than the TTL grants the lock twice", async () => {
    const clients = [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 200, writes: 2 }] },
      { id: 1, cycles: Array.from({ length: 6 }, () => ({ thinkMs: 400, holdMs: 200, writes: 2 })) },
    ];
    const options = { ttlMs: 1000, callTimeoutMs: 100, latencyMs: { min: 1, max: 1 } };
    const s = {
      ...scheduleOf({ servers: 5, clients, options, faults: [pauseInAcquire(0, 2500)] }),
      target: "sim:redlock-nocheck",
    };
    const unsafe = checkOps((await simulate(s, redlockNocheck)).ops);
    expect(unsafe.filter((v) => v.valid === false).map((v) => v.checker)).toContain("mutual-exclusion");
    // Redlock with its validity check sees the acquisition took longer than the TTL.
    const safe = checkOps((await simulate({ ...s, target: "sim:redlock" }, redlock)).ops);
    expect(safe.filter((v) => v.valid === false)).toEqual([]);
  });

  it("fuzz with only pauses inside calls finds the redlock-nocheck double grant and shrinks to one", async () => {
    const r = await fuzz({
      target: target("sim:redlock-nocheck"),
      resource: "unfenced",
      seed: 3,
      runs: 300,
      faults: ["pause"],
      faultBounds: { pauses: ["in-call"] },
    });
    expect(r.counterexample).not.toBeNull();
    const faults = r.counterexample!.schedule.faults;
    expect(faults.length).toBeGreaterThan(0);
    expect(faults.every((f) => f.kind === "pause-in-call")).toBe(true);
  });
});
