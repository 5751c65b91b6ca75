/**
 * `delay-at` on real servers: client 0's link to the resource is delayed from its first write's
 * checkpoint, not from a time. The schedule of test/real/late-writes.test.ts (TTL 500 ms, calls
 * time out after 200 ms), its timed delay replaced: the write sent right after the checkpoint
 * is held 1.5 s in the link's proxy, client 0 gives up on it, client 1 takes the expired lock
 * and writes, and then client 0's write lands — on every run, however fast the processes
 * start: the delay waits for client 0's write, and client 0 waits for the delay. And at
 * `before-acquire`, the other way (a lock server's replies to the client): the acquire sent next
 * is answered past its timeout.
 */
import { describe, expect, it } from "vitest";
import { isNemesisOp, type WriteOp } from "../../src/history/op.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { delayedWrite } from "./schedules.js";

const missingRedis = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

type DelayAt = Extract<Schedule["faults"][number], { kind: "delay-at" }>;

/**
 * The schedule with its one delay replaced by client 0's `delay-at` at `checkpoint`, run on a
 * real redis-server: the run, and its one `delay` op, whose value must say the delay's link,
 * size and checkpoint.
 */
async function delayedAt(
  checkpoint: DelayAt["checkpoint"],
  node: DelayAt["node"],
  direction: DelayAt["direction"],
) {
  const fault: DelayAt = {
    kind: "delay-at",
    client: 0,
    checkpoint,
    occurrence: 0,
    node,
    direction,
    durationMs: 1000,
    extraMs: 1500,
  };
  const r = await runChecked({ ...delayedWrite("redis:lease", "unfenced", 500), faults: [fault] });
  track(r.runId);
  expect(r.run.warnings, r.timeline).toEqual([]);
  const delays = r.run.ops.filter(isNemesisOp).filter((o) => o.f === "delay");
  expect(delays, r.timeline).toHaveLength(1);
  const [from, to] = direction === "out" ? ["client:0", node] : [node, "client:0"];
  expect(delays[0]!.value).toEqual({ from, to, extraMs: 1500, durationMs: 1000, checkpoint, occurrence: 0 });
  return { r, ops: r.run.ops, delay: delays[0]! };
}

describe.skipIf(missingRedis.length > 0)("delay-at on real servers", () => {
  it("before-write, out to the resource: the write sent next lands after the next holder's (seq 2, stale write)", async () => {
    const { r, ops, delay } = await delayedAt("before-write", "resource", "out");
    // The delay came after client 0's grant and was in place before its write was sent.
    const granted = ops.find((o) => o.process === 0 && o.f === "acquire" && o.type === "ok")!;
    const write = ops.find((o) => o.process === 0 && o.f === "write" && o.type === "invoke")!;
    expect(delay.time).toBeGreaterThan(granted.time);
    expect(delay.time).toBeLessThan(write.time);
    expect(
      ops.filter(isNemesisOp).some((o) => o.f === "delay-end"),
      r.timeline,
    ).toBe(true);
    const late = ops.find((o): o is WriteOp => o.process === 0 && o.f === "write" && o.type === "info");
    expect(late?.error, r.timeline).toBe("timeout");
    expect(late?.seq, r.timeline).toBe(2n);
    expect(r.violations, r.timeline).toEqual(["stale-write"]);
  });

  it("before-acquire, in from the lock server: the reply to the acquire sent next is held past the call's timeout", async () => {
    const { r, ops, delay } = await delayedAt("before-acquire", "server:0", "in");
    // In place before client 0's first acquire was sent: its reply comes too late, an unknown outcome.
    const acquires = ops.filter((o) => o.process === 0 && o.f === "acquire");
    expect(delay.time).toBeLessThan(acquires[0]!.time);
    expect(acquires[0]!.type, r.timeline).toBe("invoke");
    expect(acquires[1], r.timeline).toMatchObject({ type: "info", error: "timeout" });
  });
});
