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
import { CHECKER_NAMES, LIN_MODEL_NAMES } from "../../api/catalog.js";
import { checkHistoryPath, exportHistory, LINEARIZABLE } from "../../api/check-file.js";
import { formatCheckReport } from "../../report/check-text.js";
import { colorsFor } from "../../report/colors.js";
import type { InputError } from "../../result.js";
import { exitCodeOf, printInputError, printInputWarning } from "../errors.js";
import { wholeNumberArg } from "../flags.js";

interface CheckFlags {
  checker: string[];
  model: string;
  timeLimit?: number;
  json?: boolean;
  export?: string;
  allowEmpty?: boolean;
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

export async function runCheck(path: string, flags: CheckFlags): Promise<number> {
  const failWith = (errors: InputError[]): number => {
    printInputError(errors);
    if (flags.json) process.stdout.write(`${JSON.stringify({ history: path, valid: "unknown", errors })}\n`);
    return 2;
  };
  const checked = await checkHistoryPath(path, {
    checkers: flags.checker,
    model: flags.model,
    ...(flags.timeLimit === undefined ? {} : { timeLimitMs: flags.timeLimit }),
    allowEmpty: flags.allowEmpty === true,
  });
  if (!checked.ok) return failWith(checked.error);
  const outcome = checked.value;
  for (const w of outcome.warnings) printInputWarning(w);
  if (flags.export !== undefined) {
    if (outcome.ops === undefined)
      return failWith([
        { field: "--export", message: "needs a streaming checker to validate the history first" },
      ]);
    const exported = await exportHistory(path, flags.export);
    if (!exported.ok) return failWith([exported.error]);
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
  else process.stdout.write(formatCheckReport(outcome, colorsFor(process.stdout)));
  return exitCodeOf(outcome.valid);
}
