/**
 * `lockcheck check` end to end: spawns the built CLI, `node dist/src/cli/main.js`, as users
 * run it. `npm test` builds first; when running this file alone, run `npm run build` before.
 * (Spawning through tsx instead costs seconds per run on this machine.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { combineValidity, type Validity, type Verdict } from "../../src/checkers/verdict.js";
import { testTempDir } from "../temp-dir.js";

const ROOT = join(import.meta.dirname, "../..");
const HISTORIES = join(ROOT, "histories");
const CLI = join(ROOT, "dist/src/cli/main.js");
const tmp = testTempDir("lockcheck-cli-check-");
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
});

function lockcheck(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const exitFor = (v: Validity) => (v === true ? 0 : v === false ? 1 : 2);
const expectedOf = (name: string) =>
  JSON.parse(readFileSync(join(HISTORIES, name, "expected.json"), "utf8")) as {
    verdicts: Record<string, Validity>;
  };
const streamingOnly = (verdicts: Record<string, Validity>) =>
  Object.fromEntries(
    Object.entries(verdicts).filter(([k]) =>
      ["stale-write", "mutual-exclusion", "token-order", "liveness"].includes(k),
    ),
  );
const entries = readdirSync(HISTORIES).filter((n) => existsSync(join(HISTORIES, n, "history.jsonl")));

interface JsonOutput {
  history: string;
  ops: number;
  valid: Validity;
  verdicts: Verdict[];
  warnings: unknown[];
}

describe("lockcheck check", () => {
  it.each(entries)("%s: --json verdicts and exit code match expected.json", (name) => {
    const expected = streamingOnly(expectedOf(name).verdicts);
    const r = lockcheck("check", join("histories", name, "history.jsonl"), "--json");
    const out = JSON.parse(r.stdout) as JsonOutput;
    expect(Object.fromEntries(out.verdicts.map((v) => [v.checker, v.valid]))).toEqual(expected);
    expect(r.code).toBe(exitFor(combineValidity(Object.values(expected))));
  });

  it("explains the GC-pause stale write in the human summary", () => {
    const r = lockcheck("check", "histories/gc-pause-unfenced/history.jsonl");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/stale-write\s+VIOLATION \(1 anomaly\)/);
    expect(r.stdout).toMatch(/mutual-exclusion\s+valid/);
    expect(r.stdout).toContain("(ops 11, 6, 1, 4)");
    expect(r.stdout).toContain("client 1 (grant 1:0, token 33)");
    expect(r.stdout).toContain("Result: VIOLATION found by stale-write.");
  });

  it("--checker limits the checkers (comma-separated or repeated)", () => {
    const one = lockcheck(
      "check",
      "histories/redlock-clock-jump-double-grant/history.jsonl",
      "--checker",
      "token-order",
      "--json",
    );
    expect((JSON.parse(one.stdout) as JsonOutput).verdicts.map((v) => v.checker)).toEqual(["token-order"]);
    expect(one.code).toBe(0);
    const two = lockcheck(
      "check",
      "histories/redlock-clock-jump-double-grant/history.jsonl",
      "-c",
      "liveness,mutual-exclusion",
      "-c",
      "liveness",
      "--json",
    );
    expect((JSON.parse(two.stdout) as JsonOutput).verdicts.map((v) => v.checker)).toEqual([
      "liveness",
      "mutual-exclusion",
    ]);
    expect(two.code).toBe(1);
  });

  it("an unknown checker is bad input (exit 2)", () => {
    const r = lockcheck("check", "histories/clean-serial/history.jsonl", "--checker", "fairness");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--checker: unknown checker "fairness"');
  });

  it("bad input prints file:line: field: message and exits 2", () => {
    const path = join(tmp, "bad.jsonl");
    writeFileSync(
      path,
      [
        '{"index":0,"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L"}',
        '{"index":1,"time":5,"process":1,"type":"ok","f":"acquire","lock":"L","grant":"1:0","token":"seven"}',
      ].join("\n"),
    );
    const r = lockcheck("check", path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:2: token: token must be an integer`);
    const json = lockcheck("check", path, "--json");
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: "unknown",
      errors: [{ file: path, line: 2, field: "token" }],
    });
  });

  it("a missing file is bad input", () => {
    const r = lockcheck("check", join(tmp, "missing.jsonl"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing.jsonl: cannot read the history");
  });

  it("a truncated last line is a warning; the prefix is checked", () => {
    const source = readFileSync(join(HISTORIES, "gc-pause-unfenced", "history.jsonl"), "utf8");
    const path = join(tmp, "truncated.jsonl");
    writeFileSync(path, `${source}{"index":14,"time":2200000`);
    const r = lockcheck("check", path);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`warning: ${path}:15: the last line is cut off`);
    expect(r.stdout).toContain(": 14 ops");
  });

  it.each([
    ["an empty file", ""],
    ["a blank file", "  \n\t\n\r\n   "],
  ])("%s has no ops: exit 2 'empty history', unless --allow-empty", (_what, text) => {
    const path = join(tmp, `empty-${text.length}.jsonl`);
    writeFileSync(path, text);
    const r = lockcheck("check", path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: empty history`);
    expect(r.stdout).toBe("");
    const allowed = lockcheck("check", path, "--allow-empty", "--json");
    expect(allowed.code).toBe(0);
    expect((JSON.parse(allowed.stdout) as JsonOutput).ops).toBe(0);
  });

  it.each([
    ["binary bytes", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0xff, 0xfe, 0x00, 0x10])],
    ["a fragment of an op", Buffer.from('{"index":0,"time":0,"process":1,')],
  ])("a file with no complete line (%s) is bad input, not a cut-off last line", (_what, bytes) => {
    const path = join(tmp, `no-newline-${bytes.length}.jsonl`);
    writeFileSync(path, bytes);
    for (const extra of [[], ["--allow-empty"]]) {
      const r = lockcheck("check", path, ...extra);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${path}:1: not valid JSON`);
      expect(r.stderr).not.toContain("cut off");
    }
  });

  it("one complete op with no newline after it is read", () => {
    const path = join(tmp, "one-op.jsonl");
    writeFileSync(path, '{"index":0,"time":0,"process":1,"type":"invoke","f":"acquire","lock":"L"}');
    const r = lockcheck("check", path, "--json");
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as JsonOutput).ops).toBe(1);
  });

  it("--export converts to Jepsen EDN and back; checking the EDN gives the same verdicts", () => {
    const edn = join(tmp, "redlock.edn");
    const exported = lockcheck(
      "check",
      "histories/redlock-clock-jump-double-grant/history.jsonl",
      "--export",
      edn,
    );
    expect(exported.code).toBe(1);
    expect(readFileSync(edn, "utf8").split("\n")[0]).toMatch(
      /^\{:index 0, :time 0, :type :invoke, :process 1, :f :acquire/,
    );
    const fromEdn = lockcheck("check", edn, "--json", "--export", join(tmp, "back.jsonl"));
    const out = JSON.parse(fromEdn.stdout) as JsonOutput;
    expect(Object.fromEntries(out.verdicts.map((v) => [v.checker, v.valid]))).toEqual(
      expectedOf("redlock-clock-jump-double-grant").verdicts,
    );
    expect(readFileSync(join(tmp, "back.jsonl"), "utf8")).toBe(
      readFileSync(join(HISTORIES, "redlock-clock-jump-double-grant", "history.jsonl"), "utf8"),
    );
  });

  it("--checker linearizable rejects an unknown model, and uses lin-check.js when built", () => {
    const bad = lockcheck(
      "check",
      "histories/clean-serial/history.jsonl",
      "--checker",
      "linearizable",
      "--model",
      "queue",
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--model: unknown model "queue"');
    const r = lockcheck(
      "check",
      "histories/clean-serial/history.jsonl",
      "--checker",
      "linearizable",
      "--json",
    );
    if (existsSync(join(ROOT, "dist/src/api/lin-check.js"))) {
      const out = JSON.parse(r.stdout) as JsonOutput;
      expect(out.verdicts).toHaveLength(1);
      expect([0, 1, 2]).toContain(r.code);
    } else {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("the linearizability checker is not available");
    }
  });
});
