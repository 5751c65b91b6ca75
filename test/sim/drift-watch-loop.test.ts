/**
 * A schedule on which the simulated etcd lock once spun forever at one instant of virtual
 * time: a client whose clock had drifted waited on a watch for what was left of its acquire
 * deadline, a few 1e-13 ms; the watch's timeout, put at the true time where the drifted clock
 * would read its end, was rounded to the very instant it was armed, where the clock still read
 * less; so the client found time left, tried again and waited again, at the same instant, for
 * ever (each try a Raft commit: the run slowed to a crawl long before the event cap). Now a
 * timer's true time is the first at which its node's clock reads the deadline (sim/clock.ts
 * `trueTimeOfMono`). Found by running real hunts' schedules (etcd:lock, `--faults clock`) in
 * the simulator; client 0's two drifts alone make it.
 */
import { expect, it } from "vitest";
import type { Schedule } from "../../src/schedule/schedule.js";
import { prepareSimulation } from "../../src/sim/simulate.js";
import { findTarget } from "../../src/targets/index.js";

const schedule: Schedule = {
  version: 1,
  target: "sim:consensus",
  resource: "unfenced",
  seed: 0,
  options: {
    lockName: "lock",
    horizonMs: 8000,
    latencyMs: { min: 0, max: 0 },
    lossRate: 0,
    servers: 3,
    ttlMs: 1000,
    callTimeoutMs: 1000,
  },
  clients: [
    {
      id: 0,
      cycles: [
        { thinkMs: 250, holdMs: 3347, writes: 11 },
        { thinkMs: 32, holdMs: 3390, writes: 10 },
        { thinkMs: 249, holdMs: 3865, writes: 12 },
        { thinkMs: 214, holdMs: 450, writes: 6 },
      ],
      repeat: true,
    },
    {
      id: 1,
      cycles: [
        { thinkMs: 120, holdMs: 3706, writes: 12 },
        { thinkMs: 51, holdMs: 1223, writes: 4 },
      ],
      repeat: true,
    },
  ],
  faults: [
    { kind: "clock-drift", node: "client:0", at: 5637, rate: 0.667 },
    { kind: "clock-drift", node: "client:0", at: 5292, rate: -0.285 },
  ],
};

it("sim:consensus finishes a run where a drifted client waits out the last hair of its acquire", async () => {
  const t = findTarget("sim:consensus");
  if (!t.ok) throw new Error(t.error.message);
  // The run takes a few thousand events; the loop hit this cap within seconds.
  const run = await prepareSimulation(schedule, t.value.algorithm, {
    maxEvents: 100_000,
    strict: true,
  }).run();
  const last = run.ops.at(-1);
  // Client 1 goes on cycling to the end of the run (past 8 s of virtual time).
  expect(last?.time).toBeGreaterThan(8000 * 1e6);
  expect(run.ops.some((o) => o.process === 0 && o.f === "acquire" && o.type === "fail")).toBe(true);
});
