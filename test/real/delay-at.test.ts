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
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { delayedWrite } from "./schedules.js";

const missingRedis = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

describe.skipIf(missingRedis.length > 0)("delay-at on real servers", () => {
  it("before-write, out to the resource: the write sent next lands after the next holder's (seq 2, stale write)", async () => {
    const s = delayedWrite("redis:lease", "unfenced", 500);
    const r = await runChecked({
      ...s,
      faults: [
        {
          kind: "delay-at",
          client: 0,
          checkpoint: "before-write",
          occurrence: 0,
          node: "resource",
          direction: "out",
          durationMs: 1000,
          extraMs: 1500,
        },
      ],
    });
    track(r.runId);
    expect(r.run.warnings, r.timeline).toEqual([]);
    const { ops } = r.run;
    const delays = ops.filter(isNemesisOp).filter((o) => o.f === "delay");
    expect(delays, r.timeline).toHaveLength(1);
    expect(delays[0]!.value).toEqual({
      from: "client:0",
      to: "resource",
      extraMs: 1500,
      durationMs: 1000,
      checkpoint: "before-write",
      occurrence: 0,
    });
    // The delay came after client 0's grant and was in place before its write was sent.
    const granted = ops.find((o) => o.process === 0 && o.f === "acquire" && o.type === "ok")!;
    const write = ops.find((o) => o.process === 0 && o.f === "write" && o.type === "invoke")!;
    expect(delays[0]!.time).toBeGreaterThan(granted.time);
    expect(delays[0]!.time).toBeLessThan(write.time);
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
    const s = delayedWrite("redis:lease", "unfenced", 500);
    const r = await runChecked({
      ...s,
      faults: [
        {
          kind: "delay-at",
          client: 0,
          checkpoint: "before-acquire",
          occurrence: 0,
          node: "server:0",
          direction: "in",
          durationMs: 1000,
          extraMs: 1500,
        },
      ],
    });
    track(r.runId);
    expect(r.run.warnings, r.timeline).toEqual([]);
    const { ops } = r.run;
    const delays = ops.filter(isNemesisOp).filter((o) => o.f === "delay");
    expect(delays, r.timeline).toHaveLength(1);
    expect(delays[0]!.value).toEqual({
      from: "server:0",
      to: "client:0",
      extraMs: 1500,
      durationMs: 1000,
      checkpoint: "before-acquire",
      occurrence: 0,
    });
    // In place before client 0's first acquire was sent: its reply comes too late, an unknown outcome.
    const acquires = ops.filter((o) => o.process === 0 && o.f === "acquire");
    expect(delays[0]!.time).toBeLessThan(acquires[0]!.time);
    expect(acquires[0]!.type, r.timeline).toBe("invoke");
    expect(acquires[1], r.timeline).toMatchObject({ type: "info", error: "timeout" });
  });
});
