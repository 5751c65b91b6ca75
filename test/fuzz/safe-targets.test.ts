/**
 * Expected outcomes, safe side: fenced locks survive 2,000 fuzzed schedules each. Schedules
 * are kept to three clients of three cycles so that the runs stay fast on a 2-core CI box.
 */
import { describe, expect, it } from "vitest";
import { type FuzzOptions, fuzz } from "../../src/runner/fuzz.js";
import { target } from "./schedules.js";

const small = { workload: { maxClients: 3, maxCycles: 3 } } as const;

const TIMEOUT_MS = 180_000;

async function expectSafe(o: Omit<FuzzOptions, "seed" | "runs">) {
  const r = await fuzz({
    seed: 2024,
    runs: 2000,
    ...small,
    ...o,
    faultBounds: { maxClients: 3, ...o.faultBounds },
  });
  expect(r.error).toBeNull();
  expect(r.counterexample?.schedule ?? null).toBeNull();
  expect(r.runs).toBe(2000);
}

describe("fenced locks: no violation in 2,000 runs", () => {
  it(
    "lease-token, fenced, client pause + clock + partition",
    async () => {
      await expectSafe({
        target: target("sim:lease-token"),
        resource: "fenced",
        faults: ["pause", "clock", "partition"],
      });
    },
    TIMEOUT_MS,
  );

  it(
    "consensus, fenced, client and leader pauses + partitions",
    async () => {
      await expectSafe({
        target: target("sim:consensus"),
        resource: "fenced",
        faults: ["pause", "partition"],
        faultBounds: { leader: true, pauses: ["client", "checkpoint", "server"] },
      });
    },
    TIMEOUT_MS,
  );

  it(
    "zk, fenced, pauses + partitions",
    async () => {
      await expectSafe({ target: target("sim:zk"), resource: "fenced", faults: ["pause", "partition"] });
    },
    TIMEOUT_MS,
  );
});

describe("no false positives", () => {
  it(
    "every simulated target, unfenced, without faults: no violation in 200 runs",
    async () => {
      for (const name of [
        "sim:lease",
        "sim:lease-token",
        "sim:redlock",
        "sim:redlock-nocheck",
        "sim:consensus",
        "sim:zk",
      ]) {
        const r = await fuzz({
          target: target(name),
          resource: "unfenced",
          faults: [],
          seed: 7,
          runs: 200,
          ...small,
        });
        expect(r.counterexample?.schedule ?? null, name).toBeNull();
        expect(r.runs).toBe(200);
      }
    },
    TIMEOUT_MS,
  );
});
