/**
 * A user's LockAlgorithm module on real servers: docs/examples/my-lock.mjs on a redis-server,
 * docs/examples/my-etcd-lock.mjs on an etcd cluster. Loading one registers `redis:<name>` or
 * `etcd:<name>`, whose client processes import the module. A GC-like pause longer than the
 * TTL on an unfenced resource is a violation, as for lockcheck's own locks; on a resource
 * fenced by the etcd lock's token the late write is rejected and the run is valid. Nothing of
 * a run is left afterwards.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fuzz } from "../../src/api/fuzz.js";
import { loadModule } from "../../src/custom/module-target.js";
import { moduleTargetName } from "../../src/custom/preload.js";
import type { Op } from "../../src/history/op.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";

const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));
const MODULE = "module:./examples/my-lock.mjs";
const ETCD_MODULE = "module:./examples/my-etcd-lock.mjs";

const missing = missingBinaries(["redis-server"]);
const missingEtcd = missingBinaries(["redis-server", "etcd"]);

const track = expectNothingLeftAfterEach();

/** The clients the lock was granted to at least once, in order. */
const grantedTo = (ops: readonly Op[]) =>
  [
    ...new Set(
      ops
        .filter((o) => o.process !== "nemesis" && o.f === "acquire" && o.type === "ok")
        .map((o) => o.process),
    ),
  ].sort();

describe("a LockAlgorithm module on real servers", () => {
  it("registers redis:<name> next to sim:<name>, and `run` picks the real one", async () => {
    const loaded = await loadModule(MODULE, DOCS);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect([loaded.value.target.name, loaded.value.real?.name]).toEqual(["sim:my-lease", "redis:my-lease"]);
    expect(await moduleTargetName(MODULE, "run", DOCS)).toEqual({ ok: true, value: "redis:my-lease" });
    expect(await moduleTargetName(MODULE, "fuzz", DOCS)).toEqual({ ok: true, value: "sim:my-lease" });
  });

  it("an etcd module registers etcd:<name>; `run` and `fuzz --real` pick it", async () => {
    const loaded = await loadModule(ETCD_MODULE, DOCS);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect([loaded.value.target.name, loaded.value.real?.name]).toEqual([
      "sim:my-etcd-lease",
      "etcd:my-etcd-lease",
    ]);
    expect(await moduleTargetName(ETCD_MODULE, "run", DOCS)).toEqual({
      ok: true,
      value: "etcd:my-etcd-lease",
    });
    expect(await moduleTargetName(ETCD_MODULE, "fuzz", DOCS, true)).toEqual({
      ok: true,
      value: "etcd:my-etcd-lease",
    });
    expect(await moduleTargetName(ETCD_MODULE, "fuzz", DOCS)).toEqual({
      ok: true,
      value: "sim:my-etcd-lease",
    });
  });

  it("fuzz({ real: true }) of a simulator target is refused, with what to pass instead", async () => {
    await expect(fuzz({ target: "sim:lease", real: true, runs: 1 })).rejects.toThrow(
      "sim:lease runs in the simulator: name a real target",
    );
  });

  it.skipIf(missing.length > 0)("fuzz({ real: true }) of a module runs its real target", async () => {
    const r = await fuzz({
      target: `module:${join(DOCS, "examples/my-lock.mjs")}`,
      real: true,
      resource: "fenced",
      faults: ["pause"],
      runs: 1,
      seed: 1,
      runMs: 2000,
      save: false,
    });
    expect(r).toMatchObject({ target: "redis:my-lease", runs: 1 });
  });

  it("a plain lock has no real target: `run` refuses it", async () => {
    const r = await moduleTargetName("module:./examples/plain-lock.mjs", "run", DOCS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain("no real-server target");
  });

  it.skipIf(missing.length > 0)(
    "redis:my-lease, unfenced: a client paused longer than the TTL writes after the next holder (violation)",
    async () => {
      const loaded = await loadModule(MODULE, DOCS);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      const ttlMs = 500;
      const r = await runChecked(
        schedule(
          "redis:my-lease",
          "unfenced",
          { servers: 1, ttlMs, callTimeoutMs: 300, horizonMs: 3000 },
          [
            { id: 0, cycles: [{ thinkMs: 0, holdMs: 200, writes: 2 }] },
            {
              id: 1,
              cycles: Array.from({ length: 4 }, () => ({ thinkMs: ttlMs / 2, holdMs: 200, writes: 2 })),
            },
          ],
          [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 3 * ttlMs }],
        ),
      );
      track(r.runId);
      expect(r.run.warnings).toEqual([]);
      // Both clients really ran the module's lock: each was granted it at least once.
      expect(grantedTo(r.run.ops), r.timeline).toEqual([0, 1]);
      expect(r.violations, r.timeline).toContain("stale-write");
    },
  );

  /**
   * docs' etcd module with client 0 frozen by SIGSTOP right at its grant for 3 s (leases: 1 s)
   * while client 1 takes the lock: a run in which both were granted it.
   */
  const runPausedEtcdHolder = async (resource: "unfenced" | "fenced") => {
    const loaded = await loadModule(ETCD_MODULE, DOCS);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const r = await runChecked(
      schedule(
        "etcd:my-etcd-lease",
        resource,
        { servers: 3, ttlMs: 1000, callTimeoutMs: 1000, horizonMs: 8000 },
        [
          { id: 0, cycles: [{ thinkMs: 0, holdMs: 400, writes: 2 }] },
          { id: 1, cycles: Array.from({ length: 3 }, () => ({ thinkMs: 300, holdMs: 300, writes: 2 })) },
        ],
        [{ kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 3000 }],
      ),
    );
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(grantedTo(r.run.ops), r.timeline).toEqual([0, 1]);
    return r;
  };

  it.skipIf(missingEtcd.length > 0)(
    "etcd:my-etcd-lease, unfenced: the holder paused past its lease writes after the next holder (violation)",
    async () => {
      const r = await runPausedEtcdHolder("unfenced");
      expect(r.violations, r.timeline).toContain("stale-write");
    },
  );

  it.skipIf(missingEtcd.length > 0)(
    "etcd:my-etcd-lease, fenced by its create revision: the same late write is rejected, and the run is valid",
    async () => {
      const r = await runPausedEtcdHolder("fenced");
      // Client 0's writes after its pause carried the older token: the resource refused them.
      const rejected = r.run.ops.filter(
        (o) => o.process === 0 && o.f === "write" && o.type === "ok" && o.accepted === false,
      );
      expect(rejected.length, r.timeline).toBeGreaterThan(0);
      expect(r.violations, r.timeline).toEqual([]);
    },
  );
});
