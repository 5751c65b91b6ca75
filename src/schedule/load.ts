/**
 * Reading a schedule from a file: JSON syntax, then the zod schema, with every problem
 * located by file and JSON path (`faults[2].durationMs: expected a positive integer`).
 */
import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { err, type InputError, ok, type Result } from "../result.js";
import { type Schedule, scheduleSchema } from "./schedule.js";

/** "faults[2].durationMs" from ["faults", 2, "durationMs"]. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The two number fields of a schedule that are not integers. */
const FRACTIONAL_FIELDS = new Set(["lossRate", "rate"]);

function describeBound(kind: string, minimum: number | bigint, inclusive: boolean, below: boolean): string {
  if (below && Number(minimum) === 0)
    return inclusive ? `expected a non-negative ${kind}` : `expected a positive ${kind}`;
  const op = below ? (inclusive ? ">=" : ">") : inclusive ? "<=" : "<";
  return `expected ${kind === "integer" ? "an integer" : "a number"} ${op} ${minimum}`;
}

/** A zod issue phrased for people. */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const last = issue.path[issue.path.length - 1];
  const kind = typeof last === "string" && FRACTIONAL_FIELDS.has(last) ? "number" : "integer";
  switch (issue.code) {
    case "invalid_type":
      if (issue.expected === "int") return "expected an integer";
      return `expected ${issue.expected}, got ${issue.input === undefined ? "nothing" : typeof issue.input}`;
    case "too_small":
      if (issue.origin === "number") return describeBound(kind, issue.minimum, issue.inclusive ?? true, true);
      if (issue.origin === "array") return `expected at least ${issue.minimum} item(s)`;
      return issue.message;
    case "too_big":
      if (issue.origin === "number")
        return describeBound(kind, issue.maximum, issue.inclusive ?? true, false);
      if (issue.origin === "array") return `expected at most ${issue.maximum} item(s)`;
      return issue.message;
    case "unrecognized_keys":
      return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    case "invalid_value":
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union":
      if ("discriminator" in issue && issue.discriminator !== undefined) {
        return `unknown ${String(issue.discriminator)}; expected one of ${(issue as { options?: unknown[] }).options?.map((o) => JSON.stringify(o)).join(", ")}`;
      }
      return issue.message;
    default:
      return issue.message;
  }
}

/** Validates an already parsed JSON value; every schema problem becomes one InputError. */
export function parseSchedule(data: unknown, file?: string): Result<Schedule, InputError[]> {
  const parsed = scheduleSchema.safeParse(data);
  if (parsed.success) return ok(parsed.data);
  return err(
    parsed.error.issues.map((issue) => {
      const field = formatJsonPath(issue.path);
      const e: InputError = { message: describeIssue(issue) };
      if (file !== undefined) e.file = file;
      if (field !== "") e.field = field;
      return e;
    }),
  );
}

/** 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Parses schedule JSON text; the first problem found (the schema may report several: see `parseSchedule`). */
export function parseScheduleText(text: string, file?: string): Result<Schedule, InputError> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // Node reports "line L column C" or "position P" for most syntax errors (not all).
    const line = /line (\d+)/.exec(message);
    const at = /position (\d+)/.exec(message);
    const error: InputError = { message: `not valid JSON: ${message}` };
    if (file !== undefined) error.file = file;
    if (line?.[1] !== undefined) error.line = Number(line[1]);
    else if (at?.[1] !== undefined) error.line = lineOf(text, Number(at[1]));
    return err(error);
  }
  const r = parseSchedule(data, file);
  if (r.ok) return r;
  const first = r.error[0] ?? { message: "invalid schedule" };
  const more = r.error.length - 1;
  return err(
    more > 0
      ? { ...first, message: `${first.message} (and ${more} more problem${more > 1 ? "s" : ""})` }
      : first,
  );
}

export async function loadSchedule(path: string): Promise<Result<Schedule, InputError>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return err({ file: path, message: code === "ENOENT" ? "no such file" : `cannot read: ${String(e)}` });
  }
  return parseScheduleText(text, path);
}
