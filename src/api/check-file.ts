/**
 * `checkHistoryPath(path, options)`: what `lockcheck check` does between its flags and its
 * output. The streaming checkers run in one pass over the file as it is read (a `.edn` file is
 * a Jepsen history, imported: src/formats/jepsen.ts); `linearizable` hands the file to the
 * linearizability checker (lin-check.ts, loaded on demand). `exportHistory` writes the
 * (validated) history as Jepsen EDN or JSONL, by extension.
 */
import {
  CHECKER_NAMES,
  type CheckerName,
  checkHistoryFile,
  createCheckers,
  isCheckerName,
} from "../checkers/index.js";
import { combineValidity, type Verdict } from "../checkers/verdict.js";
import { readJepsenEdnFile, writeJepsenEdn } from "../formats/jepsen.js";
import type { Op } from "../history/op.js";
import { emptyHistoryError, readHistory } from "../history/read.js";
import { writeHistory } from "../history/write.js";
import type { CheckOutcome } from "../report/check-text.js";
import { err, type InputError, ok, type Result } from "../result.js";

/** The checker that is not streaming: asked for by name, never by default. */
export const LINEARIZABLE = "linearizable";

/** What lin-check.ts provides (loaded on demand). */
interface LinCheckModule {
  checkFileLinearizable(
    path: string,
    model: string,
    opts: { timeLimitMs?: number },
  ): Promise<Result<Verdict, InputError>>;
}

export interface CheckPathOptions {
  /** Checker names (default: every streaming checker); "linearizable" too. */
  checkers: readonly string[];
  /** The linearizability model. */
  model: string;
  /** The linearizability checker's time budget. */
  timeLimitMs?: number;
  allowEmpty?: boolean;
}

function selectCheckers(
  names: readonly string[],
): Result<{ streaming: CheckerName[]; linearizable: boolean }, string> {
  if (names.length === 0) return ok({ streaming: [...CHECKER_NAMES], linearizable: false });
  const streaming: CheckerName[] = [];
  let linearizable = false;
  for (const n of names) {
    if (n === LINEARIZABLE) linearizable = true;
    else if (isCheckerName(n)) {
      if (!streaming.includes(n)) streaming.push(n);
    } else return err(`unknown checker "${n}" (expected ${[...CHECKER_NAMES, LINEARIZABLE].join(", ")})`);
  }
  return ok({ streaming, linearizable });
}

/** Runs the streaming checkers over a file in one pass. */
async function checkStreaming(
  path: string,
  names: readonly CheckerName[],
  allowEmpty: boolean,
): Promise<Result<{ verdicts: Verdict[]; ops: number; warnings: InputError[] }, InputError[]>> {
  if (path.endsWith(".edn")) {
    const imported = await readJepsenEdnFile(path);
    if (!imported.ok) return imported;
    if (imported.value.ops.length === 0 && !allowEmpty) return err([emptyHistoryError(path)]);
    const checkers = createCheckers(names);
    for (const op of imported.value.ops) for (const c of checkers) c.step(op);
    const verdicts = checkers.map((c) => c.finish());
    return ok({ verdicts, ops: imported.value.ops.length, warnings: imported.value.warnings });
  }
  return checkHistoryFile(path, names, { allowEmpty });
}

async function checkLinearizable(path: string, o: CheckPathOptions): Promise<Result<Verdict, InputError>> {
  let mod: LinCheckModule;
  try {
    // Loaded on demand: the search is heavy and most checks do not need it.
    mod = (await import(new URL("./lin-check.js", import.meta.url).href)) as LinCheckModule;
  } catch (e) {
    return err({ message: `the linearizability checker is not available: ${(e as Error).message}` });
  }
  const opts = o.timeLimitMs === undefined ? {} : { timeLimitMs: o.timeLimitMs };
  return mod.checkFileLinearizable(path, o.model, opts);
}

/** The history's ops, streamed again from the file (only valid files get this far). */
async function* opsOf(path: string): AsyncGenerator<Op> {
  if (path.endsWith(".edn")) {
    const imported = await readJepsenEdnFile(path);
    if (imported.ok) yield* imported.value.ops;
    return;
  }
  yield* readHistory(path, { validate: false });
}

/** Writes the history at `from` to `to`: Jepsen EDN if it ends in .edn, else JSONL. */
export function exportHistory(from: string, to: string): Promise<Result<void, InputError>> {
  return to.endsWith(".edn") ? writeJepsenEdn(to, opsOf(from)) : writeHistory(to, opsOf(from));
}

export async function checkHistoryPath(
  path: string,
  o: CheckPathOptions,
): Promise<Result<CheckOutcome, InputError[]>> {
  const selected = selectCheckers(o.checkers);
  if (!selected.ok) return err([{ field: "--checker", message: selected.error }]);
  const { streaming, linearizable } = selected.value;
  const verdicts: Verdict[] = [];
  const warnings: InputError[] = [];
  let ops: number | undefined;
  if (streaming.length > 0) {
    const r = await checkStreaming(path, streaming, o.allowEmpty === true);
    if (!r.ok) return r;
    verdicts.push(...r.value.verdicts);
    warnings.push(...r.value.warnings);
    ops = r.value.ops;
  }
  if (linearizable) {
    const r = await checkLinearizable(path, o);
    if (!r.ok) return err([r.error.file === undefined ? { file: path, ...r.error } : r.error]);
    verdicts.push(r.value);
  }
  return ok({ history: path, ops, valid: combineValidity(verdicts.map((v) => v.valid)), verdicts, warnings });
}
