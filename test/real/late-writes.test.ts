/**
 * A write its client gave up on, applied by the real resource all the same (Kleppmann's
 * delayed packet): the resource's log, read after the run, puts its apply order on the `info`
 * completion and stale-write sees the stale holder's write land after the newer holder's. Before the
 * resource's log was read, the write stayed `info` without seq and every checker said valid.
 */
import { describe, expect, it } from "vitest";
import type { Op, WriteOp } from "../../src/history/op.js";
import { missingBinaries } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { delayedWrite } from "./schedules.js";

const missing = missingBinaries(["redis-server"]);
const track = expectNothingLeftAfterEach();

const infoWrites = (ops: readonly Op[]): WriteOp[] =>
  ops.filter((o): o is WriteOp => o.process === 0 && o.f === "write" && o.type === "info");

describe.skipIf(missing.length > 0)("writes applied after their client gave up (real resource)", () => {
  it("redis:lease, unfenced: the delayed write lands after the next holder's: a stale write", async () => {
    const r = await runChecked(delayedWrite("redis:lease", "unfenced", 500));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const [late] = infoWrites(r.run.ops);
    expect(late?.error, r.timeline).toBe("timeout");
    // Client 1's write was the resource's first; client 0's, arriving 1.5 s late, its second.
    expect(late?.seq, r.timeline).toBe(2n);
    expect(r.violations, r.timeline).toEqual(["stale-write"]);
    const stale = r.verdicts.find((v) => v.checker === "stale-write")!;
    expect(stale.anomalies[0]!.explanation).toContain("gave up on it");
  });

  it("client 0 has exited when its write arrives: what it sent still lands (packets outlive their sender)", async () => {
    const s = delayedWrite("redis:lease", "unfenced", 500);
    const r = await runChecked({
      ...s,
      clients: s.clients.map((c) => (c.id === 0 ? { ...c, cycles: c.cycles.slice(0, 1) } : c)),
    });
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(infoWrites(r.run.ops)[0]?.seq, r.timeline).toBe(2n);
    expect(r.violations, r.timeline).toEqual(["stale-write"]);
  });

  it("redis:lease-token, fenced: the same late write is rejected by the fence: not applied, no violation", async () => {
    const r = await runChecked(delayedWrite("redis:lease-token", "fenced", 500));
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    const [late] = infoWrites(r.run.ops);
    expect(late?.error, r.timeline).toBe("timeout");
    expect(late?.seq, r.timeline).toBeUndefined();
    expect(r.violations, r.timeline).toEqual([]);
  });
});
