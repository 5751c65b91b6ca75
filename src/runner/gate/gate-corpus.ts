/**
 * The gate's regression set: saved counterexamples and reference histories, each of which
 * must still get its recorded verdict. An entry is a folder with a history.jsonl and its
 * recorded verdicts — expected.json (`{ "verdicts": { "<checker>": true | false | "unknown" } }`,
 * the histories/ corpus format) or verdict.json (a saved run folder). An entry with a
 * schedule.json is re-run on its target (the simulator is deterministic, so the same
 * history comes back; a target from a user's module is loaded from the path the schedule
 * records); an entry with only a history is re-checked.
 *
 * A run on real servers is not deterministic: a counterexample that failed there may pass on
 * the next run when a fault misses its window. So a real-server entry gets up to REAL_ATTEMPTS
 * runs, each on fresh servers, and meets its expectation as soon as one of them gets the
 * recorded verdicts (as `lockcheck run --attempts` does).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { z } from "zod";
import { checkOps } from "../../checkers/index.js";
import type { Validity, Verdict } from "../../checkers/verdict.js";
import { loadScheduleWithModule } from "../../custom/schedule-module.js";
import { readHistoryFile } from "../../history/jsonl.js";
import type { CorpusResult } from "../../report/gate-result.js";
import { err, formatInputError, type InputError, ok, type Result } from "../../result.js";
import { findTarget } from "../../targets/index.js";
import type { ServerPlacement } from "../../targets/target.js";
import { replaySchedule } from "../replay.js";
import { placementFlags, readVerdictFile } from "../run-folder.js";
import { ranOn } from "./ran-on.js";

export const EXPECTED_FILE = "expected.json";

export interface CorpusEntry {
  /** Path relative to the config's folder, e.g. "histories/gc-pause-unfenced". */
  name: string;
  dir: string;
  mode: "re-run" | "re-check";
}

const validitySchema = z.union([z.boolean(), z.literal("unknown")]);
const expectedFileSchema = z.looseObject({ verdicts: z.record(z.string(), validitySchema) });

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Every entry under the corpus folders, sorted by name. A missing folder is an error, unless
 * `missingIsEmpty` (the default corpus folder, which a config need not have).
 */
export async function findCorpusEntries(
  folders: readonly string[],
  baseDir: string,
  missingIsEmpty = false,
): Promise<Result<CorpusEntry[], InputError>> {
  const entries: CorpusEntry[] = [];
  for (const folder of folders) {
    let names: string[];
    try {
      names = (await readdir(folder, { withFileTypes: true }))
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      if (missingIsEmpty) continue;
      return err({ file: folder, field: "corpus", message: "no such folder" });
    }
    const dirs = (await isFile(join(folder, "history.jsonl")))
      ? [folder]
      : names.sort().map((n) => join(folder, n));
    for (const dir of dirs) {
      if (!(await isFile(join(dir, "history.jsonl")))) continue;
      entries.push({
        name: relative(baseDir, dir) || dir,
        dir,
        mode: (await isFile(join(dir, "schedule.json"))) ? "re-run" : "re-check",
      });
    }
  }
  entries.sort((a, b) => a.name.localeCompare(b.name));
  return ok(entries);
}

/** The verdicts an entry recorded: expected.json first, else verdict.json. */
async function recordedVerdicts(dir: string): Promise<Result<Record<string, Validity>, InputError>> {
  const expectedPath = join(dir, EXPECTED_FILE);
  if (await isFile(expectedPath)) {
    let data: unknown;
    try {
      data = JSON.parse(await readFile(expectedPath, "utf8"));
    } catch (e) {
      return err({ file: expectedPath, message: `not valid JSON: ${(e as Error).message}` });
    }
    const parsed = expectedFileSchema.safeParse(data);
    if (!parsed.success) {
      return err({
        file: expectedPath,
        message: 'expected { "verdicts": { "<checker>": true | false | "unknown" } }',
      });
    }
    return ok(parsed.data.verdicts);
  }
  const warnings: InputError[] = [];
  const verdicts = await readVerdictFile(join(dir, "verdict.json"), warnings);
  if (verdicts === undefined) {
    return err(
      warnings[0] ?? {
        file: dir,
        message: `has no ${EXPECTED_FILE} or verdict.json: nothing to compare against`,
      },
    );
  }
  return ok(byChecker(verdicts));
}

function byChecker(verdicts: readonly Verdict[]): Record<string, Validity> {
  return Object.fromEntries(verdicts.map((v) => [v.checker, v.valid]));
}

const show = (v: Validity | undefined) => (v === undefined ? "not run" : String(v));

/** Runs a real-server entry gets to come back with its recorded verdicts. */
export const REAL_ATTEMPTS = 3;

/** One line per checker whose verdict is not the recorded one. */
function mismatchesOf(expected: Record<string, Validity>, actual: Record<string, Validity>): string[] {
  return Object.entries(expected)
    .filter(([checker, want]) => actual[checker] !== want)
    .map(([checker, want]) => `${checker}: recorded ${show(want)}, now ${show(actual[checker])}`);
}

/**
 * Checks one entry; a re-run entry on real servers runs them where `placement` says (simulated
 * ones have none).
 */
export async function checkCorpusEntry(
  entry: CorpusEntry,
  placement: ServerPlacement = {},
): Promise<CorpusResult> {
  const started = Date.now();
  const schedule =
    entry.mode === "re-run" ? await loadScheduleWithModule(join(entry.dir, "schedule.json")) : null;
  const target = schedule?.ok === true ? findTarget(schedule.value.target, "target") : null;
  const real = target?.ok === true && !target.value.deterministic;
  const where = real ? placement : {};
  const replay =
    entry.mode === "re-run"
      ? `lockcheck replay ${entry.dir}${placementFlags(where)}`
      : `lockcheck check ${join(entry.dir, "history.jsonl")}`;
  const base = {
    kind: "corpus" as const,
    name: entry.name,
    dir: entry.dir,
    mode: entry.mode,
    ...(target?.ok === true ? { ranOn: ranOn(target.value, placement) } : {}),
    replay,
  };
  const failed = (e: InputError, expected: Record<string, Validity> = {}): CorpusResult => ({
    ...base,
    expected,
    actual: {},
    mismatches: [],
    met: false,
    elapsedMs: Date.now() - started,
    error: formatInputError(e),
  });

  const expected = await recordedVerdicts(entry.dir);
  if (!expected.ok) return failed(expected.error);

  let actual: Record<string, Validity>;
  let mismatches: string[];
  if (schedule !== null) {
    if (!schedule.ok) return failed(schedule.error, expected.value);
    const attempts = real ? REAL_ATTEMPTS : 1;
    for (let attempt = 1; ; attempt++) {
      let replayed: Awaited<ReturnType<typeof replaySchedule>>;
      try {
        replayed = await replaySchedule(schedule.value, where);
      } catch (e) {
        return failed(
          { file: entry.dir, message: `the run failed: ${(e as Error).message}` },
          expected.value,
        );
      }
      if (!replayed.ok) return failed(replayed.error, expected.value);
      actual = byChecker(replayed.value.run.verdicts);
      mismatches = mismatchesOf(expected.value, actual);
      if (mismatches.length === 0 || attempt >= attempts) break;
    }
    if (mismatches.length > 0 && attempts > 1) {
      mismatches.push(
        `none of ${attempts} runs on real servers got the recorded verdicts (the last one's are above)`,
      );
    }
  } else {
    const history = await readHistoryFile(join(entry.dir, "history.jsonl"));
    if (!history.ok)
      return failed(history.error[0] ?? { file: entry.dir, message: "unreadable history" }, expected.value);
    actual = byChecker(checkOps(history.value.ops));
    mismatches = mismatchesOf(expected.value, actual);
  }
  return {
    ...base,
    expected: expected.value,
    actual,
    mismatches,
    met: mismatches.length === 0,
    elapsedMs: Date.now() - started,
  };
}
