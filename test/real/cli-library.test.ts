/**
 * `lockcheck run` of a library adapter end to end (spawned like a user would run it):
 * - the run folder's schedule records the adapter module, so the printed "run it again"
 *   command (also in report.html) works as printed from another working folder;
 * - `--redis-endpoints` aims the adapter at a redis-server the user runs: client pauses still
 *   apply (the library's connections go straight to that server); faults that cannot reach it
 *   are refused (exit 2) unless `--allow-ignored-faults`, and then counted as `ignoredFaults`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findBinary } from "../../src/real/cluster/binaries.js";
import { type RedisNode, startRedisNode } from "../../src/real/cluster/redis.js";
import { nodeCommand } from "../../src/real/hygiene/processes.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { testTempDir } from "../temp-dir.js";
import { missingBinaries, schedule } from "./helpers.js";
import { leftovers } from "./run-helpers.js";

const missing = missingBinaries(["redis-server"]);
const root = join(import.meta.dirname, "../..");
const LIBRARIES = fileURLToPath(new URL("../../docs/examples/libraries/", import.meta.url));
const work = testTempDir("lockcheck-test-cli-library-");

// Every run leaves nothing behind: its run id (run.json of each run folder) is in the argv of
// every process and temp dir it made.
const runFolders: string[] = [];
afterEach(async () => {
  for (const dir of runFolders.splice(0)) {
    const { runId } = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as { runId: string };
    expect(await leftovers(runId)).toEqual({ processes: [], stopped: [], dirs: [] });
  }
});

function lockcheck(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const { command, args: nodeArgs } = nodeCommand(pathToFileURL(join(root, "src/cli/main.ts")));
  const r = spawnSync(command, [...nodeArgs, ...args], { cwd, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Client 0 holds 4 s and is SIGSTOPped from 0.5 s to 3.5 s; client 1 takes over at 2 s. */
function pausedHolder(target: string, resource: Schedule["resource"]): Schedule {
  return schedule(
    target,
    resource,
    { servers: 1, ttlMs: 1000, callTimeoutMs: 2000, horizonMs: 8000 },
    [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 4000, writes: 4 }] },
      { id: 1, cycles: [{ thinkMs: 2000, holdMs: 3000, writes: 6 }] },
    ],
    [{ kind: "pause", node: "client:0", at: 500, durationMs: 3000 }],
  );
}

function writeSchedule(name: string, s: Schedule): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, `${JSON.stringify(s, null, 2)}\n`);
  return path;
}

/** `lockcheck run` of the adapter `<dir>/<name>.mjs` on `pausedHolder` (unfenced), saved to `out`. */
function runPausedHolder(dir: string, name: string, out: string) {
  const s = writeSchedule(`paused-holder-${name}`, pausedHolder(`redis:${name}`, "unfenced"));
  const r = lockcheck(["run", "--target", `module:./${name}.mjs`, "--schedule", s, "--out", out], dir);
  runFolders.push(out);
  return r;
}

describe.skipIf(missing.length > 0)("lockcheck run --target module:<library adapter>", () => {
  it("records the module, so the printed run-again command works as printed from another folder", () => {
    const out = join(work, "semaphore-run");
    const first = runPausedHolder(LIBRARIES, "redis-semaphore-mutex", out);
    expect(first.status, first.stderr + first.stdout).toBe(1);
    expect(first.stdout).toMatch(/stale-write\s+INVALID/);
    const saved = JSON.parse(readFileSync(join(out, "schedule.json"), "utf8")) as Schedule;
    const adapter = join(LIBRARIES, "redis-semaphore-mutex.mjs");
    expect(saved.module).toEqual({ path: adapter, relativePath: relative(out, adapter) });
    const again = /run it again: (lockcheck .*)$/m.exec(first.stdout)?.[1];
    expect(again).toBe(`lockcheck run --schedule ${out}`);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(`lockcheck run --schedule ${out}`);

    const elsewhere = join(work, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    const second = lockcheck([...again!.split(" ").slice(1), "--out", join(work, "again")], elsewhere);
    runFolders.push(join(work, "again"));
    expect(second.status, second.stderr + second.stdout).toBe(1);
    expect(second.stdout).toMatch(/^redis:redis-semaphore-mutex \(unfenced\)/);
    expect(second.stdout).toMatch(/stale-write\s+INVALID/);
  });

  it("a client process your library ends (it throws from its own timer) is named in the summary", () => {
    const fixtures = fileURLToPath(new URL("../fixtures/libraries/", import.meta.url));
    const r = runPausedHolder(fixtures, "mutex-default-lost-lock", join(work, "lost-lock-run"));
    // redis-semaphore's default onLockLost throws from the refresh timer of the woken holder.
    expect(r.stderr).toMatch(/warning: client:0: the library threw outside a call/);
    expect(r.stdout).toMatch(/^crashed by library client:0: your library threw outside a call/m);
    expect(r.stdout).not.toMatch(/not trusted/);
  });

  it("an adapter whose connect() returns no acquire is bad input naming the file (exit 2), not a valid run", () => {
    const adapter = join(work, "no-acquire.mjs");
    writeFileSync(
      adapter,
      'export default { name: "no-acquire", servers: "redis", fencing: false, connect() { return { async release() { return true; } }; } };\n',
    );
    const out = join(work, "no-acquire-run");
    const r = lockcheck(["run", "--target", `module:${adapter}`, "--seed", "1", "--out", out], work);
    runFolders.push(out);
    expect(r.status, r.stderr + r.stdout).toBe(2);
    expect(r.stderr).toContain(
      `${adapter}: connect() returned a client whose acquire is missing; expected a function acquire(…)`,
    );
    expect(r.stdout).not.toMatch(/valid/);
  });

  it("a run whose clients stopped on an error of their own lock code is not trusted (exit 2), though every checker says valid", () => {
    // A LockAlgorithm-shaped module whose acquire answers outside the contract: every client
    // stops at its first acquire, so the few ops recorded are "valid" but mean nothing.
    const lock = join(work, "undefined-acquire.mjs");
    writeFileSync(
      lock,
      'export default { name: "undefined-acquire", servers: "redis", fencing: false, acquire() {}, release() {} };\n',
    );
    const out = join(work, "undefined-acquire-run");
    const r = lockcheck(
      ["run", "--target", `module:${lock}`, "--seed", "1", "--duration", "2s", "--out", out],
      work,
    );
    runFolders.push(out);
    expect(r.status, r.stderr + r.stdout).toBe(2);
    expect(r.stderr).toContain("acquire() returned undefined");
    expect(r.stdout).toMatch(/not trusted: client:\d/);
    const json = lockcheck(
      ["run", "--schedule", join(out, "schedule.json"), "--json", "--out", `${out}-json`],
      work,
    );
    runFolders.push(`${out}-json`);
    expect(json.status, json.stderr).toBe(2);
    expect((JSON.parse(json.stdout) as { brokenClients?: string[] }).brokenClients?.length).toBeGreaterThan(
      0,
    );
  });

  describe("on a redis-server the user runs (--redis-endpoints)", () => {
    let server: RedisNode | null = null;
    beforeAll(async () => {
      const binary = findBinary("redis-server");
      if (!binary.ok) throw new Error(binary.error);
      const dir = join(work, "own-redis");
      mkdirSync(dir, { recursive: true });
      const started = await startRedisNode({
        name: "own",
        binary: binary.value,
        dir,
        clockShim: null,
        reaper: null,
      });
      if (!started.ok) throw new Error(started.error);
      server = started.value;
    });
    afterAll(async () => {
      await server?.stop();
    });
    const endpoint = () => `127.0.0.1:${server!.port}`;

    it("refuses fault categories that cannot reach it, naming --allow-ignored-faults (exit 2)", () => {
      const r = lockcheck(
        [
          "run",
          "--target",
          "module:./redis-semaphore-mutex.mjs",
          "--redis-endpoints",
          endpoint(),
          "--faults",
          "pause,partition",
          "--seed",
          "1",
          "--out",
          join(work, "refused"),
        ],
        LIBRARIES,
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/partition cannot reach servers you run yourself \(--redis-endpoints\)/);
      expect(r.stderr).toContain("--allow-ignored-faults");
    });

    it("refuses a schedule with a server fault, runs it with --allow-ignored-faults and counts it", async () => {
      const s = pausedHolder("redis:redis-semaphore-mutex-fenced", "fenced");
      s.faults.push({ kind: "pause", node: "server:0", at: 100, durationMs: 200 });
      const file = writeSchedule("with-server-fault", s);
      const args = [
        "run",
        "--target",
        "module:./redis-semaphore-mutex-fenced.mjs",
        "--schedule",
        file,
        "--redis-endpoints",
        endpoint(),
      ];
      const refused = lockcheck([...args, "--out", join(work, "own-refused")], LIBRARIES);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/1 fault of the schedule .* cannot reach/);

      const out = join(work, "own-run");
      const r = lockcheck(
        [...args, "--allow-ignored-faults", "--module-options", '{"note":"kept"}', "--json", "--out", out],
        LIBRARIES,
      );
      runFolders.push(out);
      const report = JSON.parse(r.stdout) as { valid: unknown; servers: string; ignoredFaults: number };
      expect(report, r.stderr).toMatchObject({ valid: true, servers: "--redis-endpoints", ignoredFaults: 1 });
      // The adapter's fence counter lives on the user's server: both clients took a token there.
      const conn = new Redis({ host: "127.0.0.1", port: server!.port, lazyConnect: true });
      await conn.connect();
      try {
        expect(Number(await conn.get("fence:lock"))).toBeGreaterThanOrEqual(2);
      } finally {
        conn.disconnect();
      }
      // The saved schedule is what ran: the server fault is not in it; the adapter options are.
      const saved = JSON.parse(readFileSync(join(out, "schedule.json"), "utf8")) as Schedule;
      expect(saved.faults).toEqual([{ kind: "pause", node: "client:0", at: 500, durationMs: 3000 }]);
      const adapter = join(LIBRARIES, "redis-semaphore-mutex-fenced.mjs");
      expect(saved.module).toEqual({
        path: adapter,
        relativePath: relative(out, adapter),
        options: { note: "kept" },
      });
    });

    it("client pauses still reach the library: the unfenced Mutex's stale write is found", () => {
      const r = lockcheck(
        [
          "run",
          "--target",
          "module:./redis-semaphore-mutex.mjs",
          "--schedule",
          writeSchedule("own-paused-holder", pausedHolder("redis:redis-semaphore-mutex", "unfenced")),
          "--redis-endpoints",
          endpoint(),
          "--out",
          join(work, "own-unfenced"),
        ],
        LIBRARIES,
      );
      runFolders.push(join(work, "own-unfenced"));
      expect(r.status, r.stderr + r.stdout).toBe(1);
      expect(r.stdout).toMatch(/stale-write\s+INVALID/);
      expect(r.stdout).toContain(
        "on your servers (--redis-endpoints): only client faults applied; ignoredFaults: 0",
      );
      expect(r.stdout).toContain(`--redis-endpoints ${endpoint()}`);
    });
  });
});
