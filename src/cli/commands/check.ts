/**
 * `lockcheck check <history> [--checker …] [--json]`: runs checkers over a recorded history
 * and explains what they found.
 *
 * The streaming checkers (stale-write, mutual-exclusion, token-order, liveness) run in one
 * pass over the file as it is read, so a history of millions of ops is checked in bounded
 * memory. `--checker linearizable` hands the file to the linearizability checker (with
 * `--model` and `--time-limit`). JSONL histories are read natively; a `.edn` file is taken to
 * be a Jepsen history and imported (see src/formats/jepsen.ts).
 *
 * `--export <file>` writes the (validated) history as Jepsen EDN or JSONL, by extension, so
 * Jepsen users can bring histories in and take ours out.
 *
 * Exit: 0 every verdict valid, 1 a violation found, 2 unknown verdict or bad input. Bad input
 * is reported on stderr as `file:line: field: message`.
 */
import { Command } from "commander";
import {
  CHECKER_NAMES,
  type CheckerName,
  checkHistoryFile,
  createCheckers,
  isCheckerName,
} from "../../checkers/index.js";
import { LIN_MODEL_NAMES } from "../../checkers/linearizable/model-names.js";
import { combineValidity, type Verdict } from "../../checkers/verdict.js";
import { readJepsenEdnFile, writeJepsenEdn } from "../../formats/jepsen.js";
import type { Op } from "../../history/op.js";
import { emptyHistoryError, readHistory } from "../../history/read.js";
import { writeHistory } from "../../history/write.js";
import { colorsFor } from "../../report/colors.js";
import { err, type InputError, ok, type Result } from "../../result.js";
import { formatCheckReport } from "../check-format.js";
import { exitCodeOf, printInputError, printInputWarning } from "../errors.js";
import { wholeNumberArg } from "../flags.js";

const LINEARIZABLE = "linearizable";

interface CheckFlags {
  checker: string[];
  model: string;
  timeLimit?: number;
  json?: boolean;
  export?: string;
  allowEmpty?: boolean;
}

/** What the linearizability engineer's src/cli/lin-check.ts provides (loaded on demand). */
interface LinCheckModule {
  checkFileLinearizable(
    path: string,
    model: string,
    opts: { timeLimitMs?: number },
  ): Promise<Result<Verdict, InputError>>;
}

export interface CheckOutcome {
  history: string;
  /** Ops read by the streaming checkers (undefined when only linearizable ran). */
  ops: number | undefined;
  valid: Verdict["valid"];
  verdicts: Verdict[];
  warnings: InputError[];
}

export function checkCommand(): Command {
  return new Command("check")
    .description("check a recorded history for stale writes, interleaved holders, token order and liveness")
    .argument("<history>", "history.jsonl (or a Jepsen history .edn)")
    .option(
      "-c, --checker <names>",
      `checkers to run, comma-separated or repeated: ${[...CHECKER_NAMES, LINEARIZABLE].join(", ")} (default: all but ${LINEARIZABLE})`,
      (v: string, prev: string[]) => [
        ...prev,
        ...v
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== ""),
      ],
      [] as string[],
    )
    .option("--model <model>", `model for --checker ${LINEARIZABLE}: ${LIN_MODEL_NAMES.join(", ")}`, "mutex")
    .option(
      "--time-limit <ms>",
      `time budget for --checker ${LINEARIZABLE}, in milliseconds`,
      wholeNumberArg(1, "expected a positive whole number of milliseconds", Number.MAX_SAFE_INTEGER),
    )
    .option("--json", "print the verdicts as JSON on stdout")
    .option(
      "--export <file>",
      "also write the history to <file>: Jepsen history EDN if it ends in .edn, else JSONL (converts in either direction)",
    )
    .option(
      "--allow-empty",
      "accept a history with no ops (by default it is bad input, exit 2: usually the wrong file)",
    )
    .addHelpText("after", "\nExit status: 0 valid, 1 a violation was found, 2 unknown verdict or bad input.")
    .action(async (path: string, flags: CheckFlags) => {
      process.exitCode = await runCheck(path, flags);
    });
}

function selectCheckers(
  names: string[],
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

async function checkLinearizable(path: string, flags: CheckFlags): Promise<Result<Verdict, InputError>> {
  let mod: LinCheckModule;
  try {
    // Loaded on demand: the search is heavy and most checks do not need it.
    mod = (await import(new URL("../lin-check.js", import.meta.url).href)) as LinCheckModule;
  } catch (e) {
    return err({ message: `the linearizability checker is not available: ${(e as Error).message}` });
  }
  const opts = flags.timeLimit === undefined ? {} : { timeLimitMs: flags.timeLimit };
  return mod.checkFileLinearizable(path, flags.model, opts);
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

function exportHistory(from: string, to: string): Promise<Result<void, InputError>> {
  return to.endsWith(".edn") ? writeJepsenEdn(to, opsOf(from)) : writeHistory(to, opsOf(from));
}

export async function runCheck(path: string, flags: CheckFlags): Promise<number> {
  const failWith = (errors: InputError[]): number => {
    printInputError(errors);
    if (flags.json) process.stdout.write(`${JSON.stringify({ history: path, valid: "unknown", errors })}\n`);
    return 2;
  };
  const selected = selectCheckers(flags.checker);
  if (!selected.ok) return failWith([{ field: "--checker", message: selected.error }]);
  const { streaming, linearizable } = selected.value;

  const verdicts: Verdict[] = [];
  const warnings: InputError[] = [];
  let ops: number | undefined;
  if (streaming.length > 0) {
    const r = await checkStreaming(path, streaming, flags.allowEmpty === true);
    if (!r.ok) return failWith(r.error);
    verdicts.push(...r.value.verdicts);
    warnings.push(...r.value.warnings);
    ops = r.value.ops;
  }
  if (linearizable) {
    const r = await checkLinearizable(path, flags);
    if (!r.ok) return failWith([r.error.file === undefined ? { file: path, ...r.error } : r.error]);
    verdicts.push(r.value);
  }
  for (const w of warnings) printInputWarning(w);
  if (flags.export !== undefined) {
    if (ops === undefined)
      return failWith([
        { field: "--export", message: "needs a streaming checker to validate the history first" },
      ]);
    const exported = await exportHistory(path, flags.export);
    if (!exported.ok) return failWith([exported.error]);
  }

  const outcome: CheckOutcome = {
    history: path,
    ops,
    valid: combineValidity(verdicts.map((v) => v.valid)),
    verdicts,
    warnings,
  };
  if (flags.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
  else process.stdout.write(formatCheckReport(outcome, colorsFor(process.stdout)));
  return exitCodeOf(outcome.valid);
}
