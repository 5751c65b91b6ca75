/**
 * Saving a report next to a history: `writeReport(dir, input)` writes `<dir>/report.html`.
 * fuzz, run and gate call it for every failing history they save, so each counterexample
 * folder can be opened in a browser as it is.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { err, type InputError, ok, type Result } from "../result.js";
import { type HtmlReportInput, renderHtmlReport } from "./html.js";

export const REPORT_FILE = "report.html";

/** Renders `input` to `<dir>/report.html` (creating `dir`); the path written, or why not. */
export async function writeReport(dir: string, input: HtmlReportInput): Promise<Result<string, InputError>> {
  const path = join(dir, REPORT_FILE);
  return writeReportFile(path, input);
}

/** Renders `input` to exactly `path`. */
export async function writeReportFile(
  path: string,
  input: HtmlReportInput,
): Promise<Result<string, InputError>> {
  try {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, renderHtmlReport(input), "utf8");
    return ok(path);
  } catch (e) {
    return err({ file: path, message: `cannot write the report: ${(e as Error).message}` });
  }
}
