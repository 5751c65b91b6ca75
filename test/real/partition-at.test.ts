/**
 * `partition-at` on real servers: a client cut off from its lock server at a point of its own
 * work, not at a time. Client 0 takes the watchdog lock (test/fixtures/libraries/
 * watchdog-lock.mjs, which renews its key every TTL/3 and retries silently) and, at its first
 * write, is cut off from the redis-server for 2 TTLs; client 1 tries every 300 ms. Its
 * renewals fail, its key expires, client 1 takes the lock and writes, and client 0 writes on:
 * a stale write, on every run, however fast the processes start — the cut waits for client
 * 0's first write, and client 0 waits for the cut.
 */
import { describe, expect, it } from "vitest";
import { isNemesisOp } from "../../src/history/op.js";
import type { Cycle, Fault } from "../../src/schedule/schedule.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, fixtureLibrary, runChecked } from "./run-helpers.js";
import { holderAndEager } from "./schedules.js";

const missingRedis = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

/**
 * Client 0 of the watchdog lock holding as `hold` says, client 1 eager; client 0's cut as
 * `cut` says. The run, checked, with no warnings.
 */
async function cutRun(hold: Cycle, cut: Omit<Extract<Fault, { kind: "partition-at" }>, "kind" | "client">) {
  const target = await fixtureLibrary("watchdog-lock.mjs");
  const r = await runChecked(
    holderAndEager(target.name, hold, [{ kind: "partition-at", client: 0, ...cut }]),
  );
  track(r.runId);
  expect(r.run.warnings, r.timeline).toEqual([]);
  return r;
}

describe.skipIf(missingRedis.length > 0)("partition-at on real servers", () => {
  it("cuts the holder off at its first write, before that write is sent: stale write", async () => {
    const r = await cutRun(
      { thinkMs: 0, holdMs: 3000, writes: 10 },
      {
        checkpoint: "before-write",
        occurrence: 0,
        durationMs: 2000,
        nodes: ["server:0"],
      },
    );
    const { ops } = r.run;
    const cuts = ops.filter(isNemesisOp).filter((o) => o.f === "partition");
    expect(cuts, r.timeline).toHaveLength(1);
    expect(cuts[0]!.value).toMatchObject({
      a: ["client:0"],
      b: ["server:0"],
      checkpoint: "before-write",
      occurrence: 0,
      durationMs: 2000,
    });
    // The cut came after client 0's grant and before its first write was sent.
    const granted = ops.find((o) => o.process === 0 && o.f === "acquire" && o.type === "ok")!;
    const firstWrite = ops.find((o) => o.process === 0 && o.f === "write" && o.type === "invoke")!;
    expect(granted, r.timeline).toBeDefined();
    expect(cuts[0]!.time).toBeGreaterThan(granted.time);
    expect(cuts[0]!.time).toBeLessThan(firstWrite.time);
    expect(
      ops.filter(isNemesisOp).some((o) => o.f === "heal"),
      r.timeline,
    ).toBe(true);
    expect(r.violations, r.timeline).toContain("stale-write");
  });

  it("before-acquire: a library's client is cut off just before its first acquire", async () => {
    const r = await cutRun(
      { thinkMs: 100, holdMs: 300, writes: 1 },
      {
        checkpoint: "before-acquire",
        occurrence: 0,
        durationMs: 500,
        nodes: ["server:0"],
      },
    );
    const { ops } = r.run;
    const cut = ops.filter(isNemesisOp).find((o) => o.f === "partition")!;
    expect(cut?.value, r.timeline).toMatchObject({
      a: ["client:0"],
      checkpoint: "before-acquire",
      occurrence: 0,
    });
    const acquire = ops.find((o) => o.process === 0 && o.f === "acquire" && o.type === "invoke")!;
    // The client waits for the cut, then calls acquire.
    expect(cut.time, r.timeline).toBeLessThanOrEqual(acquire.time);
    expect(acquire.time - cut.time, r.timeline).toBeLessThan(100e6);
  });

  it("one way: holds back what the holder sends the resource from its first write until the heal", async () => {
    const r = await cutRun(
      { thinkMs: 0, holdMs: 3000, writes: 10 },
      {
        checkpoint: "before-write",
        occurrence: 0,
        durationMs: 1500,
        nodes: ["resource"],
        direction: "out",
      },
    );
    const { ops } = r.run;
    const cut = ops.filter(isNemesisOp).find((o) => o.f === "partition")!;
    const heal = ops.filter(isNemesisOp).find((o) => o.f === "heal")!;
    expect(cut.value, r.timeline).toMatchObject({
      a: ["client:0"],
      b: ["resource"],
      oneWay: true,
      mode: "blackhole",
    });
    expect(heal, r.timeline).toBeDefined();
    // Held, not lost: the first write is answered only once the link is healed.
    const firstWrite = ops.find((o) => o.process === 0 && o.f === "write" && o.type === "invoke")!;
    const answered = ops.find((o) => o.process === 0 && o.f === "write" && o.type === "ok")!;
    expect(firstWrite.time, r.timeline).toBeGreaterThan(cut.time);
    expect(answered.time, r.timeline).toBeGreaterThanOrEqual(heal.time);
  });
});
