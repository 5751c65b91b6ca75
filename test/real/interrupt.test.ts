/**
 * Killing a real run mid-way leaves nothing behind and leaves a readable partial history:
 * - SIGINT to the runner: its handlers resume what is paused, kill servers and clients,
 *   write the merged partial history.jsonl, remove temp dirs, and exit 130;
 * - SIGKILL of the runner (the parent of every server and client process): no handler can
 *   run; the reaper kills the servers (SIGCONT first) and removes the temp dirs, the clients
 *   exit when their IPC channel closes, and the history snapshot plus the per-process event
 *   files on disk still hold the run so far.
 * At the moment of the kill a server and a client are SIGSTOPped, so "nothing stays paused"
 * is tested for real.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readHistoryFile } from "../../src/history/read.js";
import { writeHistory } from "../../src/history/write.js";
import { mergeHistory } from "../../src/real/history.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { testTempDir } from "../temp-dir.js";
import {
  missingBinaries,
  processesMatching,
  schedule,
  stoppedProcessesMatching,
  tempDirsMatching,
  waitForNone,
} from "./helpers.js";

const missing = missingBinaries(["redis-server"]);
const work = testTempDir("lockcheck-test-interrupt-");

/** A long run that, from 1.5 s on, has client 0 and server:0 paused for good. */
const longRun = schedule(
  "redis:lease",
  "unfenced",
  { servers: 1, ttlMs: 500, callTimeoutMs: 200, horizonMs: 30_000 },
  [
    { id: 0, cycles: Array.from({ length: 100 }, () => ({ thinkMs: 50, holdMs: 100, writes: 1 })) },
    { id: 1, cycles: Array.from({ length: 100 }, () => ({ thinkMs: 60, holdMs: 100, writes: 1 })) },
  ],
  [
    { kind: "pause", node: "client:0", at: 1500, durationMs: 60_000 },
    { kind: "pause", node: "server:0", at: 1500, durationMs: 60_000 },
  ],
);

const cli = join(import.meta.dirname, "../../src/cli/main.ts");

/**
 * The CLI (through tsx) run in `work` with its own TMPDIR, where every server dir, reaper file
 * and per-run folder it makes lands: its stderr so far, and its exit status.
 */
function startCli(args: readonly string[], tmp: string) {
  const runner = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), cli, ...args], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp, NO_COLOR: "1" },
  });
  let stderr = "";
  runner.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const exited = new Promise<number | null>((resolve) =>
    runner.on("exit", (code, sig) => resolve(code ?? (sig === null ? null : -1))),
  );
  return { runner, stderr: () => stderr, exited };
}

/** What is left in a CLI's TMPDIR (tsx keeps its compile cache there too: not lockcheck's). */
const leftoverIn = (tmp: string) => (): string[] => readdirSync(tmp).filter((n) => !n.startsWith("tsx-"));

/** Waits for `check`; a timeout names `what` and, given `seen`, what the command printed so far. */
async function until(
  what: string,
  check: () => boolean,
  timeoutMs: number,
  seen?: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${seen === undefined ? "" : `; it printed:\n${seen().slice(-4000)}`}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `lockcheck run` of `longRun` and waits until it is under way with its two processes paused. */
async function runUntilPaused(outDir: string) {
  const file = join(work, "schedule.json");
  writeFileSync(file, JSON.stringify(longRun));
  const started = startCli(["run", "--schedule", file, "--out", outDir, "--quiet"], tmpdir());
  const runFile = join(outDir, "run.json");
  await until("run.json", () => existsSync(runFile), 60_000);
  const { runId } = JSON.parse(readFileSync(runFile, "utf8")) as { runId: string };
  await until("two paused processes", () => stoppedProcessesMatching(runId).length === 2, 60_000);
  // A history snapshot is written every second while clients run.
  await until("a history snapshot", () => existsSync(join(outDir, "history.jsonl")), 5_000);
  return { ...started, runId };
}

describe.skipIf(missing.length > 0)("interrupting a real run", () => {
  it("SIGINT: exits 130, nothing left running or paused, temp dirs gone, partial history readable", async () => {
    const outDir = join(work, "sigint");
    // The folder holds an earlier run's results: they must not survive next to this run's.
    mkdirSync(outDir, { recursive: true });
    for (const f of ["history.jsonl", "verdict.json", "report.html"])
      writeFileSync(join(outDir, f), "earlier run\n");
    const { runner, runId, exited, stderr } = await runUntilPaused(outDir);
    // server, resource, two clients and the reaper
    expect(processesMatching(runId).length).toBe(5);
    expect(tempDirsMatching(runId).length).toBeGreaterThan(0);
    runner.kill("SIGINT");
    expect(await exited).toBe(130);
    // It says where the partial history is (even under --quiet).
    const historyFile = join(outDir, "history.jsonl");
    expect(stderr()).toContain(
      `interrupted: the history so far is in ${historyFile} (not checked); check it with: lockcheck check ${historyFile}`,
    );
    expect(await waitForNone(() => processesMatching(runId), 5000)).toEqual([]);
    expect(tempDirsMatching(runId)).toEqual([]);
    expect(existsSync(join(outDir, "verdict.json"))).toBe(false);
    expect(existsSync(join(outDir, "report.html"))).toBe(false);
    const history = await readHistoryFile(join(outDir, "history.jsonl"));
    expect(history.ok).toBe(true);
    if (history.ok) {
      expect(history.value.ops.length).toBeGreaterThan(10);
      expect(history.value.ops.some((o) => o.process === "nemesis" && o.f === "pause")).toBe(true);
    }
  }, 120_000);

  it("SIGINT during fuzz of a real target: exits 130 and leaves nothing in its temp folder", async () => {
    const tmp = mkdtempSync(join(work, "fuzz-tmp-"));
    const { runner, stderr, exited } = startCli(
      ["fuzz", "--target", "redis:lease", "--faults", "pause", "--runs", "50", "--seed", "1", "--quiet"],
      tmp,
    );
    const runFolder = (): string | undefined =>
      readdirSync(tmp).find((n) => n.endsWith("-out") && existsSync(join(tmp, n, "run.json")));
    await until("a fuzz run under way", () => runFolder() !== undefined, 60_000);
    const { runId } = JSON.parse(readFileSync(join(tmp, runFolder()!, "run.json"), "utf8")) as {
      runId: string;
    };
    // Mid-run: its servers and clients are up.
    await until("the run's servers and clients", () => processesMatching(runId).length >= 4, 60_000);
    runner.kill("SIGINT");
    expect(await exited).toBe(130);
    // Mid-run the search has found nothing yet, or (if this first run failed at once) is shrinking.
    expect(stderr()).toMatch(/^interrupted(: no violation in the \d+ runs of redis:lease| while shrinking)/m);
    expect(await waitForNone(() => processesMatching(runId), 5000)).toEqual([]);
    expect(await waitForNone(leftoverIn(tmp), 5000)).toEqual([]);
  }, 120_000);

  it("SIGINT while a real fuzz shrinks: the failing run as found stays on disk, the message names it, nothing is left", async () => {
    const tmp = mkdtempSync(join(work, "shrink-tmp-"));
    const out = join(work, "found");
    const { runner, stderr, exited } = startCli(
      ["fuzz", "--target", "redis:lease", "--resource", "unfenced", "--faults", "pause"].concat([
        "--duration",
        "5s",
        "--runs",
        "6",
        "--seed",
        "11",
        "--out",
        out,
      ]),
      tmp,
    );
    const asFound = `${out}-unshrunk`;
    await until(
      "the run as found saved",
      () => stderr().includes("the run as found is saved in"),
      90_000,
      stderr,
    );
    expect(stderr()).toContain(`the run as found is saved in ${asFound}/`);
    // Shrinking on the same servers is under way.
    runner.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr()).toMatch(
      /^interrupted while shrinking: the violation found in run \d+ of redis:lease \(unfenced\), seed 11 is saved as found in /m,
    );
    expect(stderr()).toContain(`replay: lockcheck replay ${asFound}/schedule.json`);
    const verdict = JSON.parse(readFileSync(join(asFound, "verdict.json"), "utf8")) as { valid: unknown };
    expect(verdict.valid).toBe(false);
    const history = await readHistoryFile(join(asFound, "history.jsonl"));
    expect(history.ok && history.value.ops.length > 0).toBe(true);
    expect(existsSync(join(asFound, "schedule.json"))).toBe(true);
    // The minimal one was never saved: shrinking did not finish.
    expect(existsSync(out)).toBe(false);
    expect(await waitForNone(() => processesMatching(tmp), 5000)).toEqual([]);
    expect(await waitForNone(leftoverIn(tmp), 5000)).toEqual([]);
  }, 180_000);

  it("SIGINT while a real fuzz of a library shrinks on the servers: the smallest failure so far is saved and named", async () => {
    // A library adapter has no simulator twin: its failure is shrunk on the real servers.
    const adapter = join(import.meta.dirname, "../../docs/examples/libraries/redis-semaphore-mutex.mjs");
    const tmp = mkdtempSync(join(work, "fuzz-smaller-tmp-"));
    const out = join(work, "fuzz-smaller");
    const { runner, stderr, exited } = startCli(
      ["fuzz", "--target", `module:${adapter}`, "--faults", "pause", "--duration", "5s"].concat([
        "--runs",
        "6",
        "--seed",
        "5",
        "--out",
        out,
      ]),
      tmp,
    );
    await until(
      "a smaller failure saved",
      () => stderr().includes("failed on real servers; saved in"),
      200_000,
      stderr,
    );
    expect(stderr()).toContain(`failed on real servers; saved in ${out}/ (Ctrl-C keeps it)`);
    runner.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr()).toMatch(
      /^interrupted while shrinking the violation found in run \d+ of redis:redis-semaphore-mutex \(unfenced\), seed 5: the smallest schedule that failed so far \(\d+ clients?, \d+ lock cycles?, \d+ faults?\) is saved in /m,
    );
    expect(stderr()).toContain(`, the run as found in ${out}-unshrunk/`);
    expect(stderr()).toContain(`run it again: lockcheck run --schedule ${out}`);
    const size = (file: string) => {
      const s = JSON.parse(readFileSync(file, "utf8")) as Schedule;
      return s.clients.reduce((n, c) => n + c.cycles.length, 0) + s.faults.length;
    };
    expect(size(join(out, "schedule.json"))).toBeLessThan(size(join(`${out}-unshrunk`, "schedule.json")));
    const verdict = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as { valid: unknown };
    expect(verdict.valid).toBe(false);
    const history = await readHistoryFile(join(out, "history.jsonl"));
    expect(history.ok && history.value.ops.length > 0).toBe(true);
    expect(await waitForNone(() => processesMatching(tmp), 5000)).toEqual([]);
    expect(await waitForNone(leftoverIn(tmp), 5000)).toEqual([]);
  }, 300_000);

  it("SIGINT while shrinking on real servers: the smallest failure so far stays saved, the message names it", async () => {
    // Client 0 pauses right after acquiring for 3 × TTL (a stale write); client 2 and a fault
    // that never fires (due after the run) are there to be shrunk away.
    const failing = schedule(
      "redis:lease",
      "unfenced",
      { servers: 1, ttlMs: 500, callTimeoutMs: 300, horizonMs: 3000 },
      [
        { id: 0, cycles: [{ thinkMs: 0, holdMs: 100, writes: 2 }] },
        { id: 1, cycles: Array.from({ length: 3 }, () => ({ thinkMs: 250, holdMs: 100, writes: 2 })) },
        { id: 2, cycles: [{ thinkMs: 400, holdMs: 50, writes: 1 }] },
      ],
      [
        { kind: "pause-at", client: 0, checkpoint: "acquired", occurrence: 0, durationMs: 1500 },
        { kind: "pause", node: "client:2", at: 20_000, durationMs: 100 },
      ],
    );
    const tmp = mkdtempSync(join(work, "shrink-real-tmp-"));
    const input = join(work, "failing.json");
    writeFileSync(input, JSON.stringify(failing));
    const out = join(work, "shrunk");
    const { runner, stderr, exited } = startCli(
      ["shrink", input, "--no-sim", "--runs", "1", "--out", out],
      tmp,
    );
    await until(
      "a smaller failure saved",
      () => stderr().includes("failed on real servers; saved in"),
      120_000,
    );
    runner.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr()).toMatch(
      /^interrupted after \d+ runs: the smallest schedule that failed so far \(\d+ clients? \/ \d+ cycles? \/ \d+ faults?\) is saved in /m,
    );
    expect(stderr()).toContain(`run it again: lockcheck run --schedule ${out}`);
    const saved = JSON.parse(readFileSync(join(out, "schedule.json"), "utf8")) as typeof failing;
    expect(saved.clients.length + saved.faults.length).toBeLessThan(
      failing.clients.length + failing.faults.length,
    );
    const verdict = JSON.parse(readFileSync(join(out, "verdict.json"), "utf8")) as { valid: unknown };
    expect(verdict.valid).toBe(false);
    const history = await readHistoryFile(join(out, "history.jsonl"));
    expect(history.ok && history.value.ops.length > 0).toBe(true);
    expect(await waitForNone(leftoverIn(tmp), 5000)).toEqual([]);
  }, 180_000);

  it("SIGKILL of the runner: the reaper and the clients clean up by themselves; the history on disk is readable", async () => {
    const outDir = join(work, "sigkill");
    const { runner, runId, exited } = await runUntilPaused(outDir);
    runner.kill("SIGKILL");
    await exited;
    expect(await waitForNone(() => processesMatching(runId), 10_000)).toEqual([]);
    expect(stoppedProcessesMatching(runId)).toEqual([]);
    expect(await waitForNone(() => tempDirsMatching(runId), 5000)).toEqual([]);
    // The last snapshot is a complete, valid history.
    const snapshot = await readHistoryFile(join(outDir, "history.jsonl"));
    expect(snapshot.ok).toBe(true);
    if (snapshot.ok) expect(snapshot.value.ops.length).toBeGreaterThan(10);
    // The per-process event files hold at least as much, and merge into a valid history too.
    const merged = mergeHistory({
      eventsDir: join(outDir, "events"),
      clientIds: [0, 1],
      crashed: new Set(),
      endTime: 0,
    });
    const mergedFile = join(outDir, "merged.jsonl");
    await writeHistory(mergedFile, merged);
    const reread = await readHistoryFile(mergedFile);
    expect(reread.ok).toBe(true);
    if (reread.ok && snapshot.ok)
      expect(reread.value.ops.length).toBeGreaterThanOrEqual(snapshot.value.ops.length);
  }, 120_000);
});
