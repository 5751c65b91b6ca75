/**
 * One JSONL line → one op, checking everything that can be checked from the line alone
 * (field types and allowed values). Checks that need earlier lines (pairing, order) are in
 * validate.ts.
 *
 * Accepted input, beyond what serialize.ts writes: `null` for an optional field means the
 * field is absent; a token may be a JSON integer or a decimal string, and a JSON integer too
 * large for a double is recovered exactly from the line's text. Keys this file does not know
 * are kept as they are (other tools may add fields).
 */
import { err, type InputError, ok, type Result } from "../result.js";
import { NEMESIS_FS, type Op } from "./op.js";

const OPTIONAL_KEYS = ["grant", "token", "accepted", "node", "error", "lock"] as const;
const NEMESIS_F_SET = new Set<string>(NEMESIS_FS);
const DECIMAL = /^-?\d+$/;

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
}

function isNonNegativeInt(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** The exact digits of the `"token": <integer>` in the raw line that JSON.parse read as `parsed`. */
function rawTokenDigits(line: string, parsed: number): string | undefined {
  for (const m of line.matchAll(/"token"\s*:\s*(-?\d+)\s*[,}]/g)) {
    if (Number(m[1]) === parsed) return m[1];
  }
  return undefined;
}

function parseToken(v: unknown, line: string): bigint | string {
  if (typeof v === "number") {
    if (!Number.isInteger(v)) return `token must be an integer, got ${v}`;
    if (Number.isSafeInteger(v)) return BigInt(v);
    const digits = rawTokenDigits(line, v);
    return digits !== undefined
      ? BigInt(digits)
      : `token ${v} is too large to read exactly; write it as a string`;
  }
  if (typeof v === "string" && DECIMAL.test(v)) return BigInt(v);
  return `token must be an integer (a JSON integer or a decimal string), got ${describe(v)}`;
}

function failure(file: string | undefined, line: number, field: string | undefined, message: string) {
  return err<InputError>({
    ...(file !== undefined && { file }),
    line,
    ...(field !== undefined && { field }),
    message,
  });
}

const isOpType = (t: unknown) => t === "invoke" || t === "ok" || t === "fail" || t === "info";
const isClientF = (f: unknown) => f === "write" || f === "acquire" || f === "release";

/**
 * Parses and checks one line. `lineNo` is 1-based; `file` is only used in error locations.
 * Never throws. (Written for speed: it runs once per op on million-op files.)
 */
export function parseOpLine(line: string, lineNo: number, file?: string): Result<Op, InputError> {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return failure(file, lineNo, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return failure(file, lineNo, undefined, `expected a JSON object (one op per line), got ${describe(raw)}`);
  }
  const o = raw as Record<string, unknown>;
  if (!isNonNegativeInt(o.index)) {
    return failure(file, lineNo, "index", `must be a non-negative integer, got ${describe(o.index)}`);
  }
  if (!isNonNegativeInt(o.time)) {
    return failure(
      file,
      lineNo,
      "time",
      `must be a non-negative integer (ns since start), got ${describe(o.time)}`,
    );
  }
  const process = o.process;
  const nemesis = process === "nemesis";
  if (!nemesis && !isNonNegativeInt(process)) {
    return failure(file, lineNo, "process", `must be a client number or "nemesis", got ${describe(process)}`);
  }
  if (!isOpType(o.type)) {
    return failure(
      file,
      lineNo,
      "type",
      `unknown type ${describe(o.type)} (expected invoke, ok, fail or info)`,
    );
  }
  if (line.includes("null")) for (const key of OPTIONAL_KEYS) if (o[key] === null) delete o[key];
  const f = o.f;
  if (nemesis) {
    if (typeof f !== "string" || !NEMESIS_F_SET.has(f)) {
      return failure(
        file,
        lineNo,
        "f",
        `unknown nemesis f ${describe(f)} (expected one of ${NEMESIS_FS.join(", ")})`,
      );
    }
    if (o.node !== undefined && typeof o.node !== "string") {
      return failure(file, lineNo, "node", `must be a string, got ${describe(o.node)}`);
    }
  } else {
    if (!isClientF(f)) {
      return failure(
        file,
        lineNo,
        "f",
        `unknown client f ${describe(f)} (expected acquire, release or write)`,
      );
    }
    const lock = o.lock;
    if (typeof lock !== "string" || lock === "") {
      return failure(
        file,
        lineNo,
        "lock",
        `must be a non-empty string (the lock name), got ${describe(lock)}`,
      );
    }
    const grant = o.grant;
    if (grant === undefined) {
      if (f === "write")
        return failure(file, lineNo, "grant", "a write must name the grant it was made under");
    } else if (typeof grant !== "string") {
      return failure(file, lineNo, "grant", `must be a string, got ${describe(grant)}`);
    }
    const accepted = o.accepted;
    if (accepted !== undefined) {
      if (typeof accepted !== "boolean") {
        return failure(file, lineNo, "accepted", `must be true or false, got ${describe(accepted)}`);
      }
      if (f !== "write")
        return failure(file, lineNo, "accepted", `only writes to the resource have it, not ${f}`);
    }
  }
  const rawToken = o.token;
  if (rawToken !== undefined) {
    const token = parseToken(rawToken, line);
    if (typeof token === "string") return failure(file, lineNo, "token", token);
    o.token = token;
  }
  if (o.error !== undefined && typeof o.error !== "string") {
    return failure(file, lineNo, "error", `must be a string, got ${describe(o.error)}`);
  }
  return ok(o as unknown as Op);
}
