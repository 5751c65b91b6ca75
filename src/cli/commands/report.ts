/**
 * `lockcheck report <run-folder|history.jsonl> [-o report.html]`: renders the self-contained
 * HTML timeline of a history. Exit 0 when the report is written (whatever the verdict: the
 * report shows it), 2 on bad input.
 */

import { Command } from "commander";
import { renderRunReport } from "../../api/report.js";
import { colorsFor } from "../../report/colors.js";
import { REPORT_FILE } from "../../report/write-report.js";
import { printInputError, printInputWarning } from "../errors.js";

interface ReportFlags {
  out?: string;
  recheck?: boolean;
  title?: string;
  json?: boolean;
}

export function reportCommand(): Command {
  return new Command("report")
    .description("render a run folder or history.jsonl as a self-contained HTML timeline")
    .argument("<path>", "a run folder (history.jsonl, schedule.json, verdict.json) or a history.jsonl")
    .option("-o, --out <file>", `where to write the report (default: ${REPORT_FILE} next to the history)`)
    .option("--recheck", "run the checkers again instead of reading verdict.json")
    .option("--title <text>", "title at the top of the report")
    .option("--json", "print a JSON summary on stdout")
    .action(async (path: string, flags: ReportFlags) => {
      process.exitCode = await runReport(path, flags);
    });
}

async function runReport(path: string, flags: ReportFlags): Promise<number> {
  const rendered = await renderRunReport(path, {
    ...(flags.out === undefined ? {} : { out: flags.out }),
    recheck: flags.recheck === true,
    ...(flags.title === undefined ? {} : { title: flags.title }),
    onWarning: printInputWarning,
  });
  if (!rendered.ok) return printInputError(rendered.error);
  const { file, valid, anomalies, ops, verdictSource, warnings } = rendered.value;
  if (flags.json === true) {
    const summary = { report: file, valid, anomalies, ops, verdictSource, warnings };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    const c = colorsFor(process.stdout);
    const verdict =
      valid === true ? c.green("valid") : valid === false ? c.red("violation") : c.yellow("unknown");
    process.stdout.write(
      `wrote ${c.bold(file)} (${ops} ops, ${verdict}, ${anomalies} ${anomalies === 1 ? "anomaly" : "anomalies"})\n`,
    );
  }
  return 0;
}
