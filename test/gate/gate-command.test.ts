import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gateCommand } from "../../src/cli/commands/gate.js";
import { mergeCommand } from "../../src/cli/commands/merge.js";
import { parseJUnit } from "../../src/report/junit.js";

const HISTORIES = join(import.meta.dirname, "../../histories");
let dir: string;
let configPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-gate-cmd-"));
  await cp(HISTORIES, join(dir, "histories"), { recursive: true });
  configPath = join(dir, "gate.json");
  await writeFile(
    configPath,
    JSON.stringify({
      seed: 5,
      output: "out",
      targets: [
        { target: "sim:lease", resource: "unfenced", expect: "unsafe", faults: ["pause"], runs: 100 },
        { target: "sim:zk", resource: "fenced", expect: "safe", runs: 8 },
      ],
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

async function cli(
  make: () => Command,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const errs: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((s) => out.push(String(s)) > 0);
  vi.spyOn(process.stderr, "write").mockImplementation((s) => errs.push(String(s)) > 0);
  process.exitCode = undefined;
  await make().parseAsync(args, { from: "user" });
  vi.restoreAllMocks();
  return { code: Number(process.exitCode ?? 0), stdout: out.join(""), stderr: errs.join("") };
}

describe("lockcheck gate and merge", () => {
  it("shards the work and merges the shards back into the whole", async () => {
    const whole = await cli(gateCommand, "--config", configPath, "--json");
    expect(whole.code).toBe(0);
    const all = JSON.parse(whole.stdout);
    expect(all.results).toHaveLength(2 + 7); // two targets, seven corpus entries

    const shardFiles: string[] = [];
    for (const i of [1, 2, 3]) {
      const xml = join(dir, `shard-${i}.xml`);
      const r = await cli(gateCommand, "--config", configPath, "--shard", `${i}/3`, "--json", "--junit", xml);
      expect(r.code).toBe(0);
      const json = join(dir, `shard-${i}.json`);
      await writeFile(json, r.stdout);
      shardFiles.push(json, xml);
    }
    const merged = await cli(
      mergeCommand,
      ...shardFiles.filter((f) => f.endsWith(".json")),
      "--json",
      "--junit",
      join(dir, "all.xml"),
    );
    expect(merged.code).toBe(0);
    const names = (x: { results: Array<{ name: string; met: boolean }> }) =>
      x.results.map((r) => `${r.name}:${r.met}`).sort();
    expect(names(JSON.parse(merged.stdout))).toEqual(names(all));

    const junit = parseJUnit(await readFile(join(dir, "all.xml"), "utf8"));
    expect(junit.ok && junit.value.flatMap((s) => s.cases)).toHaveLength(9);

    // JUnit files alone merge too.
    const xmlOnly = await cli(mergeCommand, ...shardFiles.filter((f) => f.endsWith(".xml")));
    expect(xmlOnly.code).toBe(0);
    expect(xmlOnly.stdout).toContain("9 test cases, 0 failed");

    // A missing shard is an error.
    const partial = await cli(mergeCommand, shardFiles[0]!, shardFiles[2]!);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain("shard 3/3 is missing");
  });

  it("exits 1 with the table and the replay command when an expectation is unmet", async () => {
    const cfg = join(dir, "strict.json");
    await writeFile(
      cfg,
      JSON.stringify({
        seed: 5,
        output: "out2",
        corpus: [],
        targets: [
          { target: "sim:lease", resource: "unfenced", expect: "safe", faults: ["pause"], runs: 100 },
        ],
      }),
    );
    const r = await cli(gateCommand, "--config", cfg);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/sim:lease \(unfenced\)\s+simulator\s+safe/);
    expect(r.stdout).toContain("✗ unmet");
    expect(r.stdout).toContain("replay: lockcheck replay");
    expect(r.stdout).toContain("gate failed: 1 of 1 expectations unmet");
  });

  it("exits 2 on a bad config, naming the field", async () => {
    const cfg = join(dir, "bad.json");
    await writeFile(cfg, JSON.stringify({ targets: [{ target: "sim:lease", expect: "safe", runs: -1 }] }));
    const r = await cli(gateCommand, "--config", cfg);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("targets[0].runs");
    const shard = await cli(gateCommand, "--config", configPath, "--shard", "4/3");
    expect(shard.code).toBe(2);
    expect(shard.stderr).toContain("--shard");
  });
});
