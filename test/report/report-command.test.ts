import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { reportCommand } from "../../src/cli/commands/report.js";
import { writeHistory } from "../../src/history/jsonl.js";
import { writeReport } from "../../src/report/write-report.js";
import { pausedHolderHistory, pausedHolderSchedule } from "./fixtures.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-report-cmd-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

/** Runs `lockcheck report …` in-process; returns its exit code and what it printed. */
async function report(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const errs: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((s) => out.push(String(s)) > 0);
  vi.spyOn(process.stderr, "write").mockImplementation((s) => errs.push(String(s)) > 0);
  process.exitCode = undefined;
  await reportCommand().parseAsync(args, { from: "user" });
  vi.restoreAllMocks();
  return { code: Number(process.exitCode ?? 0), stdout: out.join(""), stderr: errs.join("") };
}

async function runFolder(name: string, withVerdict: boolean): Promise<string> {
  const folder = join(dir, name);
  const ops = pausedHolderHistory();
  const { mkdir } = await import("node:fs/promises");
  await mkdir(folder, { recursive: true });
  const w = await writeHistory(join(folder, "history.jsonl"), ops);
  expect(w.ok).toBe(true);
  await writeFile(join(folder, "schedule.json"), JSON.stringify(pausedHolderSchedule()));
  if (withVerdict) {
    // Only the stale-write verdict: the report must show what verdict.json says, not re-check.
    const verdicts = checkOps(ops, ["stale-write"]);
    await writeFile(join(folder, "verdict.json"), JSON.stringify({ valid: false, verdicts }));
  }
  return folder;
}

describe("lockcheck report", () => {
  it("renders a run folder to report.html next to its history, with its recorded verdicts", async () => {
    const folder = await runFolder("run-a", true);
    const r = await report(folder, "--json");
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({
      report: join(folder, "report.html"),
      valid: false,
      anomalies: 1,
      verdictSource: "verdict.json",
    });
    const html = await readFile(join(folder, "report.html"), "utf8");
    expect(html).toContain("sim:redlock · schedule seed 7");
    expect(html).not.toContain("interleaved-writes");
  });

  it("checks a bare history.jsonl itself and writes where -o says", async () => {
    const folder = await runFolder("run-b", false);
    const out = join(dir, "elsewhere", "r.html");
    const r = await report(join(folder, "history.jsonl"), "-o", out, "--title", "paused holder");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(out);
    const html = await readFile(out, "utf8");
    expect(html).toContain("<h1>paused holder</h1>");
    expect(html).toContain("interleaved-writes"); // all checkers ran
  });

  it("--recheck ignores verdict.json", async () => {
    const folder = await runFolder("run-c", true);
    const r = await report(folder, "--recheck", "--json");
    expect(JSON.parse(r.stdout)).toMatchObject({ verdictSource: "checked", anomalies: 2 });
  });

  it("exits 2 with a located message on bad input", async () => {
    const missing = await report(join(dir, "nope"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file or folder");

    const bad = join(dir, "bad.jsonl");
    await writeFile(
      bad,
      '{"index":0,"time":0,"process":0,"type":"invoke","f":"acquire","lock":"L"}\nnot json\n',
    );
    const r = await report(bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:2: /);
  });
});

describe("lockcheck report of a library adapter's run folder", () => {
  const WATCHDOG = fileURLToPath(new URL("../fixtures/libraries/watchdog-lock.mjs", import.meta.url));
  /** Its holds as the embedded timeline has them: with or without a ttl mark. */
  const ttlMarks = (html: string) => ({
    marked: /"ttlEnd":\d/.test(html),
    unmarked: html.includes('"ttlEnd":null'),
  });

  it("loads the module the schedule names: a lock that renews gets no 'held past its ttl' marks", async () => {
    // Without the module the target is unknown, and holds get their ttl marks.
    const plain = await runFolder("watchdog-unknown", true);
    const schedule = { ...pausedHolderSchedule(), target: "redis:watchdog-lock" };
    await writeFile(join(plain, "schedule.json"), JSON.stringify(schedule));
    expect((await report(plain)).code).toBe(0);
    expect(ttlMarks(await readFile(join(plain, "report.html"), "utf8"))).toEqual({
      marked: true,
      unmarked: false,
    });

    const folder = await runFolder("watchdog", true);
    await writeFile(
      join(folder, "schedule.json"),
      JSON.stringify({ ...schedule, module: { path: WATCHDOG } }),
    );
    const r = await report(folder);
    expect(r.code, r.stderr).toBe(0);
    expect(ttlMarks(await readFile(join(folder, "report.html"), "utf8"))).toEqual({
      marked: false,
      unmarked: true,
    });
  });

  it("renders the report with ttl marks, and says why, when the named module cannot be loaded", async () => {
    const folder = await runFolder("watchdog-gone", true);
    const gone = join(dir, "no-such-adapter.mjs");
    await writeFile(
      join(folder, "schedule.json"),
      JSON.stringify({ ...pausedHolderSchedule(), target: "redis:gone-lock", module: { path: gone } }),
    );
    const r = await report(folder);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("drawing the holds without knowing whether the lock renews its lease");
    expect(ttlMarks(await readFile(join(folder, "report.html"), "utf8")).marked).toBe(true);
  });
});

describe("writeReport", () => {
  it("writes report.html into the folder, creating it", async () => {
    const folder = join(dir, "new", "run-1");
    const ops = pausedHolderHistory();
    const r = await writeReport(folder, { ops, verdicts: checkOps(ops) });
    expect(r).toEqual({ ok: true, value: join(folder, "report.html") });
    expect((await stat(join(folder, "report.html"))).size).toBeGreaterThan(1000);
  });
});
