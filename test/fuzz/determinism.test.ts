/**
 * Determinism: the same schedule gives byte-identical histories; a schedule written to JSON
 * and read back runs identically; the same fuzz seed gives the same runs and counterexample.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeOp } from "../../src/history/jsonl.js";
import type { Op } from "../../src/history/op.js";
import { fuzz, fuzzScheduleArb } from "../../src/runner/fuzz.js";
import { firstDifference } from "../../src/runner/replay.js";
import { parseScheduleText } from "../../src/schedule/load.js";
import { target } from "./schedules.js";

const bytes = (ops: readonly Op[]) => ops.map((o) => `${serializeOp(o)}\n`).join("");

describe("determinism", () => {
  for (const name of ["sim:lease", "sim:redlock", "sim:consensus", "sim:zk"]) {
    it(`${name}: run twice ⇒ identical bytes; serialize ⇒ parse ⇒ identical run`, async () => {
      const t = target(name);
      const arb = fuzzScheduleArb({
        target: t,
        seed: 0,
        faults: ["pause", "clock", "partition", "crash", "delay"],
        workload: { maxClients: 3, maxCycles: 3 },
        faultBounds: { maxClients: 3 },
      });
      await fc.assert(
        fc.asyncProperty(arb, async (schedule) => {
          const a = await t.run(schedule);
          const b = await t.run(schedule);
          expect(firstDifference(a.ops, b.ops)).toBeNull();
          const reparsed = parseScheduleText(JSON.stringify(schedule, null, 2));
          if (!reparsed.ok) throw new Error(reparsed.error.message);
          expect(reparsed.value).toEqual(schedule);
          const c = await t.run(reparsed.value);
          expect(bytes(c.ops)).toBe(bytes(a.ops));
        }),
        { numRuns: 40, seed: 9 },
      );
    });
  }

  it("the same fuzz seed gives the same runs and the same counterexample", async () => {
    const o = {
      target: target("sim:lease"),
      resource: "unfenced" as const,
      faults: ["pause" as const],
      runs: 500,
    };
    const a = await fuzz({ ...o, seed: 31 });
    const b = await fuzz({ ...o, seed: 31 });
    expect(a.counterexample).not.toBeNull();
    expect(b.runs).toBe(a.runs);
    expect(b.counterexample?.foundAtRun).toBe(a.counterexample?.foundAtRun);
    expect(b.counterexample?.original).toEqual(a.counterexample?.original);
    expect(bytes(b.counterexample!.ops)).toBe(bytes(a.counterexample!.ops));
  });
});
