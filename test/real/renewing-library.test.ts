/**
 * A lock library that renews its lease in the background (`renews: true`), caught by
 * partitions alone: test/fixtures/libraries/watchdog-lock.mjs, a home-grown Redis lock whose
 * watchdog pushes the key's expiry back every TTL/3 and retries silently when that fails.
 *
 * The schedule is what `lockcheck run --target module:… --faults partition --seed <s>
 * --duration 10s` generates: holds up to 3 × the lease, a write at least every quarter lease,
 * and partitions that cut one client off from the redis-server (not from the resource) for a
 * lease or more. A holder cut off that way cannot renew; its key expires, another client takes
 * the lock and writes, and the cut-off holder, which still believes it holds the lock, writes
 * after it. Seeds 1 and 3 were found by search on this machine (each found it alone, and again
 * on 3 reruns of its schedule; seeds 2 and 4 did not); the test needs one of them to, so one
 * unlucky real run does not fail it.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generateSchedule } from "../../src/api/generate-schedule.js";
import { loadModule } from "../../src/custom/module-target.js";
import { isNemesisOp, type WriteOp } from "../../src/history/op.js";
import { missingBinaries } from "./helpers.js";
import { type CheckedRealRun, expectNothingLeftAfterEach, leftovers, runChecked } from "./run-helpers.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/libraries/", import.meta.url));
const SEEDS = [1, 3];

const missingRedis = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

describe.skipIf(missingRedis.length > 0)("a lock that renews its lease, under partitions", () => {
  it("a holder cut off from Redis past its TTL keeps writing after the next holder: stale write", async () => {
    const loaded = await loadModule("module:./watchdog-lock.mjs", FIXTURES);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const target = loaded.value.target;
    expect(target.renews).toBe(true);
    const runs: CheckedRealRun[] = [];
    let ttlMs = 0;
    for (const seed of SEEDS) {
      const schedule = generateSchedule(target, {
        seed,
        faults: ["partition"],
        real: { durationMs: 10_000, clients: 4 },
      });
      ttlMs = schedule.options.ttlMs;
      const r = await runChecked(schedule);
      track(r.runId); // the last run is checked after the test, even if it fails here
      runs.push(r);
      if (r.violations.includes("stale-write")) break;
      expect(await leftovers(r.runId)).toEqual({ processes: [], stopped: [], dirs: [] });
    }
    const found = runs.at(-1)!;
    expect(found.violations, runs.map((r) => r.timeline).join("\n\n")).toContain("stale-write");
    expect(found.run.warnings, found.timeline).toEqual([]);

    // The stale holder lost its lease to a cut from the redis-server of a TTL or more, made
    // after it was granted the lock and before its stale write: its renewals failed.
    const { ops } = found.run;
    const anomaly = found.verdicts.find((v) => v.checker === "stale-write")!.anomalies[0]!;
    const staleWrite = ops[anomaly.ops[0]!] as WriteOp;
    const granted = ops.find(
      (o) =>
        o.process === staleWrite.process &&
        o.f === "acquire" &&
        o.type === "ok" &&
        o.grant === staleWrite.grant,
    )!;
    const client = `client:${staleWrite.process}`;
    const cut = ops.filter(isNemesisOp).find((o) => {
      if (o.f !== "partition" || o.time < granted.time || o.time > staleWrite.time) return false;
      const { a, b, durationMs } = o.value as { a: string[]; b: string[]; durationMs: number };
      const sides = [a, b];
      return (
        durationMs >= ttlMs &&
        sides.some((side) => side.includes(client)) &&
        sides.some((side) => side.includes("server:0"))
      );
    });
    expect(cut, found.timeline).toBeDefined();
  });
});
