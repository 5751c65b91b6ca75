/**
 * `--cluster` with `--redis-image`, `--etcd-image` and `--compose`: every command that starts
 * real servers takes them (src/cli/placement-flags.ts), refuses them for local processes, and
 * the commands it prints for the user repeat them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parsePlacementFlags } from "../../src/cli/placement-flags.js";
import { placementFlags } from "../../src/runner/run-folder.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "src", "cli", "main.js");

function lockcheck(args: string[], cwd: string) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
}

describe("parsePlacementFlags", () => {
  it("builds the docker options from the flags, and only with docker", () => {
    const log = () => {};
    const docker = parsePlacementFlags(
      { cluster: "docker", redisImage: "mine/redis", etcdImage: "mine/etcd", compose: "c.yml" },
      log,
    );
    expect(docker).toEqual({
      ok: true,
      value: {
        cluster: "docker",
        docker: { images: { redis: "mine/redis", etcd: "mine/etcd" }, composeFile: "c.yml", log },
      },
    });
    expect(parsePlacementFlags({ cluster: "docker" })).toEqual({
      ok: true,
      value: { cluster: "docker", docker: {} },
    });
    expect(parsePlacementFlags({ cluster: "process" })).toEqual({ ok: true, value: { cluster: "process" } });
    expect(parsePlacementFlags({})).toEqual({ ok: true, value: { cluster: "process" } });
    expect(parsePlacementFlags({ cluster: "process", etcdImage: "x" })).toEqual({
      ok: false,
      error: { field: "--etcd-image", message: "only with --cluster docker (servers in containers)" },
    });
    expect(parsePlacementFlags({ compose: "c.yml" })).toEqual({
      ok: false,
      error: { field: "--compose", message: "only with --cluster docker (servers in containers)" },
    });
    // Without --cluster, the fallback decides (gate: its config's cluster, checked by gate()).
    expect(parsePlacementFlags({ redisImage: "r" }, undefined, "docker")).toEqual({
      ok: true,
      value: { cluster: "docker", docker: { images: { redis: "r" } } },
    });
    expect(parsePlacementFlags({ cluster: "k8s" }).ok).toBe(false);
  });

  it("what printed commands add: nothing for local processes, the cluster and the flags given", () => {
    expect(placementFlags({})).toBe("");
    expect(placementFlags({ cluster: "process" })).toBe("");
    expect(placementFlags({ cluster: "docker" })).toBe(" --cluster docker");
    expect(
      placementFlags({
        cluster: "docker",
        docker: { images: { redis: "r:1", etcd: "e:2" }, composeFile: "my.yml", log: () => {} },
      }),
    ).toBe(" --cluster docker --redis-image r:1 --etcd-image e:2 --compose my.yml");
  });
});

describe("the commands", () => {
  const made: string[] = [];
  const work = () => {
    made.push(mkdtempSync(join(tmpdir(), "lockcheck-test-placement-")));
    return made.at(-1)!;
  };
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it("run, fuzz, shrink, replay and gate all take the docker options", () => {
    const cwd = work();
    for (const command of ["run", "fuzz", "shrink", "replay", "gate"]) {
      const help = lockcheck([command, "--help"], cwd).stdout;
      for (const flag of [
        "--cluster <kind>",
        "--redis-image <image>",
        "--etcd-image <image>",
        "--compose <file>",
      ])
        expect(help, `${command} --help`).toContain(flag);
    }
  });

  it("refuse them with local processes, naming the flag (exit 2)", () => {
    const cwd = work();
    const fuzz = lockcheck(
      ["fuzz", "--target", "redis:lease", "--redis-image", "mine/redis", "--runs", "1"],
      cwd,
    );
    expect(fuzz.status).toBe(2);
    expect(fuzz.stderr).toContain("error: --redis-image: only with --cluster docker");
    writeFileSync(
      join(cwd, "g.json"),
      JSON.stringify({ targets: [{ target: "sim:lease", expect: "unsafe" }] }),
    );
    const gate = lockcheck(["gate", "--config", "g.json", "--etcd-image", "mine/etcd"], cwd);
    expect(gate.status).toBe(2);
    expect(gate.stderr).toContain('g.json says "cluster": "process" (give --cluster docker)');
  });
});
