/**
 * `delay-at` in the simulator: one link of a client is delayed from a checkpoint of its own
 * work, as a timed delay of that link would be, and recorded as a `delay` with the checkpoint.
 * The schedule of test/sim/late-writes.test.ts (client 0 holds with a TTL of 500 ms and writes
 * at once; calls time out after 200 ms), its timed delay replaced by one at client 0's write.
 */
import { describe, expect, it } from "vitest";
import type { Op, WriteOp } from "../../src/history/op.js";
import type { Fault, Schedule } from "../../src/schedule/schedule.js";
import { delayedWrite } from "../real/schedules.js";
import { completion, invocation, MS, nemesisOps, scheduleOf, simulateChecked } from "./helpers.js";

type DelayAtFault = Extract<Fault, { kind: "delay-at" }>;

const atWrite = (occurrence: number): DelayAtFault => ({
  kind: "delay-at",
  client: 0,
  checkpoint: "before-write",
  occurrence,
  node: "resource",
  direction: "out",
  durationMs: 1000,
  extraMs: 1500,
});

const withFaults = (s: Schedule, faults: Fault[]): Schedule => ({ ...s, faults });

const lateWrite = (ops: readonly Op[]): WriteOp | undefined =>
  ops.find((o): o is WriteOp => o.process === 0 && o.f === "write" && o.type === "info");

describe("delay-at (simulator)", () => {
  it("before-write, out to the resource: the write sent right after is the delayed packet (info, seq later, stale write)", async () => {
    const r = await simulateChecked(withFaults(delayedWrite("sim:lease", "unfenced", 500), [atWrite(0)]));
    const sent = invocation(r.ops, 0, "write").time;
    const value = {
      from: "client:0",
      to: "resource",
      extraMs: 1500,
      durationMs: 1000,
      checkpoint: "before-write",
      occurrence: 0,
    };
    expect(nemesisOps(r.ops).map((o) => [o.f, o.time, o.node, o.value])).toEqual([
      ["delay", sent, "client:0", value],
      ["delay-end", sent + 1000 * MS, "client:0", value],
    ]);
    expect(lateWrite(r.ops)?.error).toBe("timeout");
    // Client 1's write was the resource's first; client 0's, arriving 1.5 s late, its second.
    expect(lateWrite(r.ops)?.seq).toBe(2n);
    expect(r.violations).toEqual(["stale-write"]);
  });

  it("at an occurrence the client never reaches: nothing is delayed, nothing recorded", async () => {
    const r = await simulateChecked(withFaults(delayedWrite("sim:lease", "unfenced", 500), [atWrite(1)]));
    expect(nemesisOps(r.ops)).toEqual([]);
    expect(completion(r.ops, 0, "write").type).toBe("ok");
    expect(r.violations).toEqual([]);
  });

  it("acquire-sent, in from the lock server: the grant comes extraMs later", async () => {
    const holder = (faults: Fault[]) =>
      scheduleOf({ clients: [{ id: 0, cycles: [{ thinkMs: 100, holdMs: 0, writes: 0 }] }], faults });
    const lease = (s: Schedule): Schedule => ({ ...s, target: "sim:lease" });
    const slowGrant: DelayAtFault = {
      kind: "delay-at",
      client: 0,
      checkpoint: "acquire-sent",
      occurrence: 0,
      node: "server:0",
      direction: "in",
      durationMs: 500,
      extraMs: 70,
    };
    const plain = await simulateChecked(lease(holder([])));
    const slowed = await simulateChecked(lease(holder([slowGrant])));
    // One-way latency 10 ms: the grant at 120 ms, and 70 ms later with its reply delayed.
    expect(completion(plain.ops, 0, "acquire").time).toBe(120 * MS);
    expect(completion(slowed.ops, 0, "acquire").time).toBe(190 * MS);
    const [delay] = nemesisOps(slowed.ops);
    expect([delay?.f, delay?.time, delay?.node]).toEqual(["delay", 100 * MS, "server:0"]);
    expect(delay?.value).toMatchObject({ from: "server:0", to: "client:0", checkpoint: "acquire-sent" });
    // The other direction does not hold the grant back: the request was sent before the checkpoint.
    const out = await simulateChecked(lease(holder([{ ...slowGrant, direction: "out" }])));
    expect(completion(out.ops, 0, "acquire").time).toBe(120 * MS);
  });

  it("afterMs after the checkpoint: the delay starts by the client's timer, while it goes on", async () => {
    const later: DelayAtFault = { ...atWrite(0), afterMs: 5 };
    const r = await simulateChecked(withFaults(delayedWrite("sim:lease", "unfenced", 500), [later]));
    const sent = invocation(r.ops, 0, "write").time;
    const [delay] = nemesisOps(r.ops);
    expect([delay?.f, delay?.time]).toEqual(["delay", sent + 5 * MS]);
    expect(delay?.value).toMatchObject({ checkpoint: "before-write", occurrence: 0, afterMs: 5 });
    // The write was on its way before the delay: it is answered in time.
    expect(completion(r.ops, 0, "write").type).toBe("ok");
  });
});
