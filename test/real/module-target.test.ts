/**
 * A user's LockAlgorithm module (docs/examples/my-lock.mjs) on a real redis-server: loading it
 * registers `redis:my-lease`, whose client processes import the module. A GC-like pause longer
 * than the TTL on an unfenced resource is a violation, as for lockcheck's own lease lock, and
 * nothing of the run is left afterwards.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadModule } from "../../src/custom/module-target.js";
import { moduleTargetName } from "../../src/custom/preload.js";
import { missingBinaries, schedule } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";

const DOCS = fileURLToPath(new URL("../../docs/", import.meta.url));
const MODULE = "module:./examples/my-lock.mjs";

const missing = missingBinaries(["redis-server"]);

const track = expectNothingLeftAfterEach();

describe("a LockAlgorithm module on real servers", () => {
  it("registers redis:<name> next to sim:<name>, and `run` picks the real one", async () => {
    const loaded = await loadModule(MODULE, DOCS);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect([loaded.value.target.name, loaded.value.real?.name]).toEqual(["sim:my-lease", "redis:my-lease"]);
    expect(await moduleTargetName(MODULE, "run", DOCS)).toEqual({ ok: true, value: "redis:my-lease" });
    expect(await moduleTargetName(MODULE, "fuzz", DOCS)).toEqual({ ok: true, value: "sim:my-lease" });
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
      const granted = new Set(
        r.run.ops
          .filter((o) => o.process !== "nemesis" && o.f === "acquire" && o.type === "ok")
          .map((o) => o.process),
      );
      expect([...granted].sort(), r.timeline).toEqual([0, 1]);
      expect(r.violations, r.timeline).toContain("stale-write");
    },
  );
});
