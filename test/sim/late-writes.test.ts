/**
 * The simulator's twin of test/real/late-writes.test.ts: a write delayed past its client's
 * timeout still reaches the resource, after the run's clients are done if need be, and its
 * `info` completion gets the resource's apply order; stale-write then sees it.
 */
import { describe, expect, it } from "vitest";
import type { Op, WriteOp } from "../../src/history/op.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { delayedWrite } from "../real/schedules.js";
import { simulateChecked } from "./helpers.js";

/** The real test's schedule, in the simulator; client 0 without its idle second cycle when `ends`. */
function delayed(
  target: string,
  resource: Schedule["resource"],
  o: { ends?: boolean; faults?: Fault[] } = {},
) {
  const s = delayedWrite(target, resource, 500);
  const clients = o.ends
    ? s.clients.map((c) => (c.id === 0 ? { ...c, cycles: c.cycles.slice(0, 1) } : c))
    : s.clients;
  return { ...s, target, clients, faults: [...s.faults, ...(o.faults ?? [])] };
}

const lateWrite = (ops: readonly Op[]): WriteOp | undefined =>
  ops.find((o): o is WriteOp => o.process === 0 && o.f === "write" && o.type === "info");

describe("writes applied after their client gave up (simulator)", () => {
  it("the delayed write lands after the next holder's: its info completion has seq, and it is a stale write", async () => {
    const r = await simulateChecked(delayed("sim:lease", "unfenced"));
    expect(lateWrite(r.ops)?.seq).toBe(2n);
    expect(r.violations).toEqual(["stale-write"]);
  });

  it("still on its way when every client is done: the world runs on until it arrives", async () => {
    const r = await simulateChecked(delayed("sim:lease", "unfenced", { ends: true }));
    expect(lateWrite(r.ops)?.seq).toBe(2n);
    expect(r.violations).toEqual(["stale-write"]);
  });

  it("a partition that cuts the link before it arrives drops it: no seq, no violation", async () => {
    const cut: Fault = {
      kind: "partition",
      a: ["client:0"],
      b: ["resource"],
      oneWay: false,
      at: 1000,
      durationMs: 2000,
    };
    const r = await simulateChecked(delayed("sim:lease", "unfenced", { ends: true, faults: [cut] }));
    expect(lateWrite(r.ops)?.error).toBe("timeout");
    expect(lateWrite(r.ops)?.seq).toBeUndefined();
    expect(r.violations).toEqual([]);
  });

  it("fenced: the resource rejects the late write (a lower token): not applied, no violation", async () => {
    const r = await simulateChecked(delayed("sim:lease-token", "fenced"));
    expect(lateWrite(r.ops)?.error).toBe("timeout");
    expect(lateWrite(r.ops)?.seq).toBeUndefined();
    expect(r.violations).toEqual([]);
  });
});
