/**
 * Checkpoint faults with `afterMs` on real servers: the client process times them itself from
 * the checkpoint and goes on meanwhile. Client 0 takes the watchdog lock (test/fixtures/
 * libraries/watchdog-lock.mjs: renews every TTL/3, retries silently) and holds it 3 s, a write
 * every 300 ms; client 1 tries every 300 ms. 150 ms after client 0's grant — in the sleep
 * before its first write, where a shrunk real counterexample's timed fault had come — it is
 * cut off from the redis-server, or frozen, for 2 TTLs: a stale write.
 */
import { describe, expect, it } from "vitest";
import { isNemesisOp, type Op } from "../../src/history/op.js";
import type { Fault } from "../../src/schedule/schedule.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, fixtureLibrary, runChecked } from "./run-helpers.js";
import { holderAndEager } from "./schedules.js";

const missingRedis = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

const ms = (ns: number): number => ns / 1e6;
const grantOf = (ops: readonly Op[]) =>
  ops.find((o) => o.process === 0 && o.f === "acquire" && o.type === "ok");

async function runHolder(fault: Fault) {
  const target = await fixtureLibrary("watchdog-lock.mjs");
  const r = await runChecked(holderAndEager(target.name, { thinkMs: 0, holdMs: 3000, writes: 10 }, [fault]));
  track(r.runId);
  expect(r.run.warnings, r.timeline).toEqual([]);
  return r;
}

describe.skipIf(missingRedis.length > 0)(
  "checkpoint faults afterMs after the checkpoint, on real servers",
  () => {
    it("partition-at acquired +150 ms: the cut comes 150 ms after the grant", async () => {
      const r = await runHolder({
        kind: "partition-at",
        client: 0,
        checkpoint: "acquired",
        occurrence: 0,
        afterMs: 150,
        durationMs: 2000,
        nodes: ["server:0"],
      });
      const { ops } = r.run;
      const cut = ops.filter(isNemesisOp).find((o) => o.f === "partition");
      const granted = grantOf(ops);
      expect(cut, r.timeline).toBeDefined();
      expect(granted, r.timeline).toBeDefined();
      expect(cut!.value).toMatchObject({
        a: ["client:0"],
        b: ["server:0"],
        checkpoint: "acquired",
        afterMs: 150,
      });
      // Never sooner; later by the time a message to the parent and the proxies' cut take (a
      // loose bound: a loaded CI runner is slow; test/sim/after-checkpoint.test.ts pins the timing).
      const after = ms(cut!.time - granted!.time);
      expect(after, r.timeline).toBeGreaterThanOrEqual(150);
      expect(after, r.timeline).toBeLessThan(1000);
      expect(r.violations, r.timeline).toContain("stale-write");
    });

    it("pause-at acquired +150 ms: the client stops itself 150 ms after the grant", async () => {
      const r = await runHolder({
        kind: "pause-at",
        client: 0,
        checkpoint: "acquired",
        occurrence: 0,
        afterMs: 150,
        durationMs: 2000,
      });
      const { ops } = r.run;
      const pause = ops.filter(isNemesisOp).find((o) => o.f === "pause");
      const granted = grantOf(ops);
      expect(pause, r.timeline).toBeDefined();
      expect(pause!.value).toMatchObject({
        checkpoint: "acquired",
        occurrence: 0,
        afterMs: 150,
        durationMs: 2000,
      });
      const after = ms(pause!.time - granted!.time);
      expect(after, r.timeline).toBeGreaterThanOrEqual(150);
      expect(after, r.timeline).toBeLessThan(1000);
      expect(r.violations, r.timeline).toContain("stale-write");
    });
  },
);
