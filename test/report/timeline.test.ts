import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import type { Op } from "../../src/history/op.js";
import { buildTimeline, pairFaults } from "../../src/report/timeline.js";
import { type Draft, longHistory, numbered, pausedHolderHistory, pausedHolderSchedule } from "./fixtures.js";

describe("buildTimeline on the paused-holder history", () => {
  const ops = pausedHolderHistory();
  const verdicts = checkOps(ops, ["stale-write", "mutual-exclusion"]);
  const tl = buildTimeline({ ops, verdicts, schedule: pausedHolderSchedule() });

  it("has one lane per client and per server", () => {
    expect(tl.lanes.map((l) => l.id)).toEqual([
      "client:0",
      "client:1",
      "client:2",
      "server:0",
      "server:1",
      "server:2",
    ]);
  });

  it("draws each grant as a hold with its token, from the acquire ok to the release", () => {
    expect(tl.holds.map((h) => [h.lane, h.token, h.start, h.end, h.release])).toEqual([
      ["client:0", "1", 2, 170, "fail"],
      ["client:1", "2", 113, 150, "ok"],
      ["client:2", "3", 178, 200, "none"],
    ]);
    expect(tl.holds[0]?.ttlEnd).toBe(102); // granted at 2 ms, ttl 100 ms
    expect(tl.attempts.map((a) => [a.lane, a.outcome])).toEqual([
      ["client:1", "fail"],
      ["client:2", "info"],
    ]);
  });

  it("marks writes as accepted, rejected or uncertain", () => {
    expect(tl.writes.map((w) => `${w.lane}@${w.time}:${w.status}`)).toEqual([
      "client:0@12:accepted",
      "client:1@122:accepted",
      "client:1@142:accepted",
      "client:0@163:accepted",
      "client:2@187:rejected",
      "client:2@200:uncertain",
    ]);
    expect(tl.stats.writes).toEqual({ accepted: 4, rejected: 1, uncertain: 1, failed: 0 });
  });

  it("pairs faults and places them on the nodes they hit", () => {
    const byKind = Object.fromEntries(tl.faults.map((f) => [f.kind, f]));
    expect(byKind.pause).toMatchObject({
      lanes: ["client:0"],
      start: 15,
      end: 155,
      open: false,
      label: "pause 140 ms",
    });
    expect(byKind.partition).toMatchObject({ start: 60, end: 100, open: false });
    expect(byKind.partition?.lanes.sort()).toEqual(["server:0", "server:1", "server:2"]);
    expect(byKind.crash).toMatchObject({ lanes: ["server:0"], start: 130, end: 145 });
    expect(byKind["clock-jump"]).toMatchObject({
      lanes: ["server:1"],
      start: 90,
      end: 90,
      label: "clock +250 ms",
    });
  });

  it("links each anomaly from the stale write to the newer one", () => {
    expect(tl.anomalies).toHaveLength(2);
    const stale = tl.anomalies.find((a) => a.kind === "stale-write");
    expect(stale?.from).toEqual({ lane: "client:0", time: 163 });
    expect(stale?.to).toEqual({ lane: "client:1", time: 122 });
    expect(stale?.headline).toBe(
      "stale-write: client 0's write (token 1) accepted after client 1's (token 2)",
    );
  });
});

describe("pairFaults", () => {
  it("treats a Jepsen-style invoke and completion of one fault as one fault", () => {
    const ops = numbered([
      { time: 1e6, process: "nemesis", type: "invoke", f: "pause", node: "server:1" },
      { time: 2e6, process: "nemesis", type: "info", f: "pause", node: "server:1" },
      { time: 5e6, process: "nemesis", type: "invoke", f: "resume", node: "server:1" },
      { time: 6e6, process: "nemesis", type: "info", f: "resume", node: "server:1" },
    ]);
    const faults = pairFaults(ops.filter((o) => o.process === "nemesis") as never, 10);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatchObject({ kind: "pause", start: 1, end: 5, open: false, ops: [0, 1, 2, 3] });
  });

  it("keeps a fault open to the end of the history when it never ends", () => {
    const ops = numbered([{ time: 3e6, process: "nemesis", type: "info", f: "crash", node: "server:0" }]);
    const [f] = pairFaults(ops as never, 9);
    expect(f).toMatchObject({ kind: "crash", start: 3, end: 9, open: true });
  });
});

/** Random single-client-at-a-time histories: every call is an invoke and maybe a completion. */
const historyArb = fc
  .array(
    fc.record({
      process: fc.integer({ min: 0, max: 3 }),
      f: fc.constantFrom("acquire", "write", "release"),
      outcome: fc.constantFrom("ok", "ok-rejected", "fail", "info", "open"),
      gapMs: fc.integer({ min: 0, max: 20 }),
    }),
    { maxLength: 60 },
  )
  .map((calls) => {
    const drafts: Draft[] = [];
    let t = 0;
    const grants = new Map<number, string>();
    const openCall = new Set<number>();
    calls.forEach((c, i) => {
      if (openCall.has(c.process)) return; // one call at a time per process
      t += c.gapMs * 1e6;
      const lock = "L";
      const grant = grants.get(c.process) ?? `${c.process}:${i}`;
      grants.set(c.process, grant);
      const base = { process: c.process, lock } as const;
      if (c.f === "write") drafts.push({ ...base, time: t, type: "invoke", f: "write", grant });
      else if (c.f === "release") drafts.push({ ...base, time: t, type: "invoke", f: "release", grant });
      else drafts.push({ ...base, time: t, type: "invoke", f: "acquire" });
      if (c.outcome === "open") {
        openCall.add(c.process);
        return;
      }
      t += 1e6;
      const type = c.outcome === "ok-rejected" ? "ok" : c.outcome;
      if (c.f === "write") {
        drafts.push({
          ...base,
          time: t,
          type,
          f: "write",
          grant,
          ...(type === "ok" ? { accepted: c.outcome === "ok" } : {}),
        });
      } else if (c.f === "release") drafts.push({ ...base, time: t, type, f: "release", grant });
      else
        drafts.push({
          ...base,
          time: t,
          type,
          f: "acquire",
          ...(type === "ok" ? { grant, token: BigInt(i) } : {}),
        });
    });
    return numbered(drafts);
  });

describe("buildTimeline on random histories", () => {
  it("draws every write once, every granted acquire as a hold and every other acquire as an attempt", () => {
    fc.assert(
      fc.property(historyArb, (ops: Op[]) => {
        const tl = buildTimeline({ ops, verdicts: [] });
        const invokes = (f: string) =>
          ops.filter((o) => o.type === "invoke" && o.process !== "nemesis" && o.f === f);
        expect(tl.writes).toHaveLength(invokes("write").length);
        const granted = ops.filter((o) => o.f === "acquire" && o.type === "ok").length;
        expect(tl.holds).toHaveLength(granted);
        expect(tl.attempts).toHaveLength(invokes("acquire").length - granted);
        const completions = ops.filter((o) => o.f === "write" && o.type !== "invoke");
        expect(tl.stats.writes.accepted).toBe(
          completions.filter((o) => o.type === "ok" && o.f === "write" && o.accepted !== false).length,
        );
        expect(tl.stats.writes.failed).toBe(completions.filter((o) => o.type === "fail").length);
        for (const h of tl.holds) expect(h.end).toBeGreaterThanOrEqual(h.start);
        for (const w of tl.writes) expect(w.time).toBeGreaterThanOrEqual(w.start);
      }),
    );
  });

  it("finds every stale write of a long history and puts its link on real writes", () => {
    const ops = longHistory(4, 100, 3);
    const verdicts = checkOps(ops, ["stale-write"]);
    const tl = buildTimeline({ ops, verdicts });
    expect(tl.anomalies).toHaveLength(4); // rounds 24, 49, 74, 99
    for (const a of tl.anomalies) {
      expect(a.from).not.toBeNull();
      expect(a.to).not.toBeNull();
      expect(tl.writes.some((w) => w.lane === a.from?.lane && w.time === a.from?.time)).toBe(true);
    }
  });
});

describe("pairFaults with overlapping partitions", () => {
  it("ends only the partition a heal names, and every partition on a bare heal", () => {
    const p1 = { a: ["server:0"], b: ["server:1"], oneWay: false };
    const p2 = { a: ["server:2"], b: ["server:3"], oneWay: true };
    const ops = numbered([
      { time: 1e6, process: "nemesis", type: "info", f: "partition", value: p1 },
      { time: 2e6, process: "nemesis", type: "info", f: "partition", value: p2 },
      { time: 3e6, process: "nemesis", type: "info", f: "heal", value: p1 },
      { time: 5e6, process: "nemesis", type: "info", f: "partition", value: p1 },
      { time: 7e6, process: "nemesis", type: "info", f: "heal" },
    ]);
    const faults = pairFaults(ops as never, 10);
    expect(faults.map((f) => [f.lanes.join("+"), f.start, f.end, f.label])).toEqual([
      ["server:0+server:1", 1, 3, "partition server:0 ✕ server:1"],
      ["server:2+server:3", 2, 7, "partition server:2 → server:3"],
      ["server:0+server:1", 5, 7, "partition server:0 ✕ server:1"],
    ]);
  });
});

describe("ttl marks", () => {
  it("are drawn for lease locks and not for locks that renew their lease", () => {
    const ops = pausedHolderHistory();
    const schedule = pausedHolderSchedule();
    for (const [target, marked] of [
      ["sim:redlock", true],
      ["redis:lease", true],
      ["sim:consensus", false],
      ["etcd:lock", false],
      ["sim:zk", false],
    ] as const) {
      const tl = buildTimeline({ ops, verdicts: [], schedule: { ...schedule, target } });
      expect(tl.holds[0]?.ttlEnd !== null, target).toBe(marked);
    }
  });

  it("are not drawn for a library adapter that says it renews its lease", () => {
    const input = {
      ops: pausedHolderHistory(),
      verdicts: [],
      schedule: { ...pausedHolderSchedule(), target: "redis:my-watchdog" },
    };
    expect(buildTimeline(input).holds[0]?.ttlEnd).not.toBeNull();
    expect(buildTimeline({ ...input, renews: true }).holds[0]?.ttlEnd).toBeNull();
  });
});
