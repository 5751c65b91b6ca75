/**
 * `replay` and `shrink` of a real schedule when its servers cannot start (here: redis-server
 * named by LOCKCHECK_REDIS_SERVER is not there): one `error:` line that says why and how to
 * mend it, exit 2 (not 1, which says "a violation"), no stack trace and no folder left. And
 * `--cluster` is checked: a word it does not know, or docker for a schedule of the simulator.
 * `npm test` builds first.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { schedule as realSchedule } from "../real/helpers.js";
import { testTempDir } from "../temp-dir.js";

const CLI = join(import.meta.dirname, "../../dist/src/cli/main.js");
const dir = testTempDir("lockcheck-cli-servers-");
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
  const one = realSchedule(
    "redis:lease",
    "unfenced",
    { servers: 1, ttlMs: 500 },
    [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 10, writes: 1 }] }],
    [],
  );
  writeFileSync(join(dir, "real.json"), JSON.stringify(one));
  writeFileSync(join(dir, "sim.json"), JSON.stringify({ ...one, target: "sim:lease" }));
});

function lockcheck(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeout: 60_000,
  });
}

const NO_REDIS = { LOCKCHECK_REDIS_SERVER: join(dir, "no-such-redis-server") };

describe("servers that cannot start", () => {
  for (const command of [["replay"], ["shrink", "--quiet"]]) {
    it(`${command[0]}: says why on one line and exits 2`, () => {
      const r = lockcheck([...command, "real.json"], NO_REDIS);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `error: redis:lease: redis-server: "${NO_REDIS.LOCKCHECK_REDIS_SERVER}" is not an executable file; install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set LOCKCHECK_REDIS_SERVER=/path/to/redis-server (lockcheck run also takes --redis-server)\n`,
      );
      expect(r.stdout).toBe("");
      expect(readdirSync(dir).sort()).toEqual(["real.json", "sim.json"]);
    });
  }
});

describe("--cluster", () => {
  for (const command of ["replay", "shrink"]) {
    it(`${command}: a kind it does not know, and docker for the simulator, are refused`, () => {
      const bad = lockcheck([command, "real.json", "--cluster", "k8s"]);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toBe('error: --cluster: expected process or docker, got "k8s"\n');
      const sim = lockcheck([command, "sim.json", "--cluster", "docker"]);
      expect(sim.status).toBe(2);
      expect(sim.stderr).toBe(
        "error: --cluster: only for real targets (redis:…, etcd:…); sim:lease runs in the simulator\n",
      );
    });
  }
});
