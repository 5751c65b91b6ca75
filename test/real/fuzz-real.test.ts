/**
 * `fuzz` on real targets (issue 11, item 3): runs that hunt on servers started once. A short
 * fuzz of redis:lease with pauses finds the stale write; a session reuses its servers (the
 * same server processes serve every run) and puts them back as new between runs: keys
 * flushed, a server crashed and not restarted comes back, a paused one runs again. After the
 * session nothing is left: no process, nothing stopped, no temp dir.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModule } from "../../src/custom/module-target.js";
import type { ClientOp } from "../../src/history/op.js";
import { fuzz } from "../../src/runner/fuzz.js";
import { realHuntArb, realRunSchedule, realRunSeed } from "../../src/runner/fuzz-real.js";
import { realTargetFor } from "../../src/targets/real.js";
import type { Target, TargetSession } from "../../src/targets/target.js";
import {
  holdAndTry,
  missingBinaries,
  processesMatching,
  schedule,
  stoppedProcessesMatching,
  tempDirsMatching,
  waitForNone,
} from "./helpers.js";
import { shortFuzz } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);

function target(name: string): Target {
  const t = realTargetFor(name);
  if (t === undefined) throw new Error(`no real target ${name}`);
  return t;
}

const acquired = (ops: readonly { process: unknown; f?: string; type: string }[], p: number) =>
  (ops as ClientOp[]).find((o) => o.process === p && o.f === "acquire" && o.type !== "invoke")?.type;

/**
 * `t` as it is, but every session's runs go through `wrap` (which calls `run` to run it), and
 * `opened` hears of each session opened.
 */
function wrappingRuns(
  t: Target,
  wrap: (
    run: TargetSession["run"],
    ...args: Parameters<TargetSession["run"]>
  ) => ReturnType<TargetSession["run"]>,
  opened: (s: TargetSession) => void = () => {},
): Target {
  return {
    ...t,
    async openSession(opts) {
      const s = await t.openSession!(opts);
      opened(s);
      return {
        ...s,
        run: (schedule, stopWhen) => wrap((a, b) => s.run(a, b), schedule, stopWhen),
        serverPids: () => s.serverPids(),
        close: () => s.close(),
      };
    },
  };
}

describe.skipIf(missing.length > 0)("fuzz on real targets", () => {
  it("a short fuzz of redis:lease with pauses finds the stale write", async () => {
    const r = await shortFuzz(target("redis:lease"));
    expect(r.error).toBeNull();
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
    const ce = r.counterexample!;
    expect(ce.verdicts.some((v) => v.valid === false)).toBe(true);
    expect(ce.schedule.clients.every((c) => c.repeat === true)).toBe(true);
    expect(ce.schedule.faults.length).toBeGreaterThan(0);
  }, 120_000);

  it("runs at once, each on servers of its own, and names the run that failed by its index", async () => {
    const t = target("redis:lease");
    let running = 0;
    let mostAtOnce = 0;
    const servers = new Set<string>();
    // Counting runs in progress and the sessions' servers.
    const counted = wrappingRuns(
      t,
      async (run, schedule, stopWhen) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        try {
          return await run(schedule, stopWhen);
        } finally {
          running--;
        }
      },
      (s) => servers.add(s.serverPids().join(",")),
    );
    const r = await shortFuzz(counted, { real: { parallel: 2 } });
    expect(r.error).toBeNull();
    expect(mostAtOnce).toBe(2);
    expect(servers.size, "two sessions, two sets of servers").toBe(2);
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
    const ce = r.counterexample!;
    expect(ce.verdicts.some((v) => v.valid === false)).toBe(true);
    // Run N is the campaign's N-th schedule (what `lockcheck run --seed` of that run makes).
    const arb = realHuntArb(t, ["pause"], 5000, 4, "unfenced");
    expect(ce.original).toEqual(realRunSchedule(arb, 11, ce.foundAtRun - 1));
    expect(r.runs).toBeGreaterThanOrEqual(ce.foundAtRun);
  }, 120_000);

  it("a run that throws ends the search: the error names its schedule, after the other run stopped", async () => {
    const t = target("redis:lease");
    let calls = 0;
    let running = 0;
    const failing = wrappingRuns(t, async (run, schedule, stopWhen) => {
      if (++calls === 2) throw new Error("the second run broke");
      running++;
      try {
        return await run(schedule, stopWhen);
      } finally {
        running--;
      }
    });
    const r = await shortFuzz(failing, { seed: 12, real: { parallel: 2 } });
    expect(running, "no run still going").toBe(0);
    expect(r.error?.message).toContain("the second run broke");
    expect(r.counterexample).toBeNull();
    // The second run handed out is run index 1.
    const arb = realHuntArb(t, ["pause"], 5000, 4, "unfenced");
    expect(r.error?.schedule).toEqual(realRunSchedule(arb, 12, 1));
  }, 120_000);

  it("a shard starts at its own first run, and counts runs from the campaign's start", async () => {
    const t = target("redis:lease-token");
    const seeds: number[] = [];
    const recording = wrappingRuns(t, (run, schedule, stopWhen) => {
      seeds.push(schedule.seed);
      return run(schedule, stopWhen);
    });
    // Runs 3, 4 and 5 of a campaign of 6 (its second shard); fenced, so nothing fails.
    const r = await shortFuzz(recording, {
      resource: "fenced",
      startAt: 3,
      runs: 3,
      options: { horizonMs: 1500 },
    });
    expect(r.error).toBeNull();
    expect(r.counterexample).toBeNull();
    expect(seeds).toEqual([3, 4, 5].map((i) => realRunSeed(11, i)));
    expect(r.runs).toBe(6);
    expect(r.interrupted).toBe(false);
  }, 120_000);

  it("servers that cannot start are the campaign's error, not an exception", async () => {
    const t = target("redis:lease");
    const r = await fuzz({
      target: {
        ...t,
        openSession: () =>
          Promise.reject(new Error("redis:lease: starting containers: image redis:7 is not on the engine")),
      },
      resource: "unfenced",
      seed: 1,
      runs: 2,
      faults: ["pause"],
    });
    expect(r.error?.message).toContain("image redis:7 is not on the engine");
    expect(r.counterexample).toBeNull();
    expect(r.runs).toBe(0);
  });

  it("with partitions that black-hole: every run's schedule says so, and the partitions that fired did", async () => {
    const r = await shortFuzz(target("redis:lease"), {
      faults: ["pause", "partition"],
      real: { partitionMode: "blackhole" },
    });
    expect(r.error).toBeNull();
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
    const ce = r.counterexample!;
    expect(ce.schedule.partitionMode).toBe("blackhole");
    // Two-way ones among its partitions (a one-way partition black-holes whatever the mode).
    expect(ce.schedule.faults.some((f) => f.kind === "partition" && !f.oneWay)).toBe(true);
    // Every one that fired before the run ended black-holed. (Which fired depends on real timing:
    // a pause may break the lock before any partition starts. What a black-holed partition does
    // to calls is test/real/outcomes-redis.test.ts's.)
    const cuts = ce.ops.filter((o) => o.process === "nemesis" && o.f === "partition");
    expect(cuts.map((o) => (o.value as { mode?: string }).mode)).toEqual(cuts.map(() => "blackhole"));
  }, 120_000);

  it("a user's LockAlgorithm module on real servers (redis:my-lease) fuzzes the same way", async () => {
    const docs = fileURLToPath(new URL("../../docs/", import.meta.url));
    const loaded = await loadModule("module:./examples/my-lock.mjs", docs);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const real = loaded.value.real;
    expect(real?.openSession).toBeDefined();
    const r = await shortFuzz(real!);
    expect(r.error).toBeNull();
    expect(r.counterexample, `no violation in ${r.runs} runs`).not.toBeNull();
  }, 120_000);

  it("a session reuses its servers and resets them between runs (keys, crashes, pauses)", async () => {
    const session: TargetSession = await target("redis:lease").openSession!({ resource: "unfenced" });
    let id = "";
    try {
      const pids = session.serverPids();
      expect(pids).toHaveLength(2); // server:0 and the resource
      // The servers carry the session's id in their argv (what the leftover checks look for).
      id = readFileSync(`/proc/${pids[0]}/cmdline`, "utf8").match(/lcrun[0-9a-f]+/)?.[0] ?? "";
      // Run 1: client 0 holds the 5 s lease and is crashed: the key would outlive the run.
      const first = await session.run(
        holdAndTry([{ kind: "crash", node: "client:0", at: 100, restartAfterMs: null }]),
      );
      expect(acquired(first.ops, 0)).toBe("ok");
      expect(acquired(first.ops, 1)).not.toBe("ok"); // held (the lease retries until it gives up)
      // Run 2: flushed, so client 0 gets the lock again; the server is crashed for good meanwhile,
      // and the resource paused past the end of the run.
      const second = await session.run(
        holdAndTry([
          { kind: "crash", node: "server:0", at: 600, restartAfterMs: null },
          { kind: "pause", node: "resource", at: 700, durationMs: 60_000 },
        ]),
      );
      expect(acquired(second.ops, 0)).toBe("ok");
      // Run 3: the server was restarted and the resource resumed: a normal run.
      const third = await session.run(holdAndTry([]));
      expect(acquired(third.ops, 0)).toBe("ok");
      expect(third.ops.find((o) => o.process === 0 && o.f === "write" && o.type !== "invoke")?.type).toBe(
        "ok",
      );
      // The resource process is the same one throughout; server:0 was restarted once, by the reset.
      expect(session.serverPids()[1]).toBe(pids[1]);
    } finally {
      await session.close();
    }
    expect(id).not.toBe("");
    expect(await waitForNone(() => processesMatching(id), 5000)).toEqual([]);
    expect(stoppedProcessesMatching(id)).toEqual([]);
    expect(await waitForNone(() => tempDirsMatching(id), 2000)).toEqual([]);
  }, 120_000);

  it("a session's run ends where stopWhen says so, long before its horizon", async () => {
    const session = await target("redis:lease").openSession!({ resource: "unfenced" });
    try {
      const long = schedule(
        "redis:lease",
        "unfenced",
        { servers: 1, ttlMs: 500, callTimeoutMs: 200, horizonMs: 30_000 },
        [{ id: 0, cycles: [{ thinkMs: 50, holdMs: 100, writes: 1 }], repeat: true }],
        [],
      );
      const r = await session.run(long, (ops) => ops.some((o) => o.process === 0 && o.f === "write"));
      const last = Math.max(...r.ops.map((o) => o.time)) / 1e6;
      expect(r.ops.some((o) => o.process === 0 && o.f === "write")).toBe(true);
      // Stopped at the first look after the first write (about a second in), not at 30 s.
      expect(last).toBeLessThan(15_000);
    } finally {
      await session.close();
    }
  }, 120_000);

  it("servers start once per campaign: the same server processes serve every run", async () => {
    const t = target("redis:lease");
    const session = await t.openSession!({ resource: "unfenced" });
    try {
      const before = session.serverPids();
      for (let i = 0; i < 3; i++) await session.run(holdAndTry([]));
      expect(session.serverPids()).toEqual(before);
    } finally {
      await session.close();
    }
  }, 120_000);
});
