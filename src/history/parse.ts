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
import { CLIENT_FS, NEMESIS_FS, OP_TYPES, type Op } from "./op.js";

const OPTIONAL_KEYS = ["grant", "token", "accepted", "node", "error", "lock"] as const;
const CLIENT_F_SET = new Set<string>(CLIENT_FS);
const NEMESIS_F_SET = new Set<string>(NEMESIS_FS);
const TYPE_SET = new Set<string>(OP_TYPES);
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

/**
 * Parses and checks one line. `lineNo` is 1-based; `file` is only used in error locations.
 * Never throws.
 */
export function parseOpLine(line: string, lineNo: number, file?: string): Result<Op, InputError> {
  const fail = (field: string | undefined, message: string) =>
    err<InputError>({
      ...(file !== undefined && { file }),
      line: lineNo,
      ...(field !== undefined && { field }),
      message,
    });
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return fail(undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return fail(undefined, `expected a JSON object (one op per line), got ${describe(raw)}`);
  }
  const o = raw as Record<string, unknown>;
  if (!isNonNegativeInt(o.index))
    return fail("index", `must be a non-negative integer, got ${describe(o.index)}`);
  if (!isNonNegativeInt(o.time)) {
    return fail("time", `must be a non-negative integer (ns since start), got ${describe(o.time)}`);
  }
  const nemesis = o.process === "nemesis";
  if (!nemesis && !isNonNegativeInt(o.process)) {
    return fail("process", `must be a client number or "nemesis", got ${describe(o.process)}`);
  }
  if (typeof o.type !== "string" || !TYPE_SET.has(o.type)) {
    return fail("type", `unknown type ${describe(o.type)} (expected invoke, ok, fail or info)`);
  }
  if (line.includes("null")) for (const key of OPTIONAL_KEYS) if (o[key] === null) delete o[key];
  if (nemesis) {
    if (typeof o.f !== "string" || !NEMESIS_F_SET.has(o.f)) {
      return fail("f", `unknown nemesis f ${describe(o.f)} (expected one of ${NEMESIS_FS.join(", ")})`);
    }
    if (o.node !== undefined && typeof o.node !== "string")
      return fail("node", `must be a string, got ${describe(o.node)}`);
  } else {
    if (typeof o.f !== "string" || !CLIENT_F_SET.has(o.f)) {
      return fail("f", `unknown client f ${describe(o.f)} (expected acquire, release or write)`);
    }
    if (typeof o.lock !== "string" || o.lock === "") {
      return fail("lock", `must be a non-empty string (the lock name), got ${describe(o.lock)}`);
    }
    if (o.grant !== undefined && typeof o.grant !== "string") {
      return fail("grant", `must be a string, got ${describe(o.grant)}`);
    }
    if (o.f === "write" && o.grant === undefined)
      return fail("grant", "a write must name the grant it was made under");
    if (o.accepted !== undefined) {
      if (typeof o.accepted !== "boolean")
        return fail("accepted", `must be true or false, got ${describe(o.accepted)}`);
      if (o.f !== "write") return fail("accepted", `only writes to the resource have it, not ${o.f}`);
    }
  }
  if (o.token !== undefined) {
    const token = parseToken(o.token, line);
    if (typeof token === "string") return fail("token", token);
    o.token = token;
  }
  if (o.error !== undefined && typeof o.error !== "string")
    return fail("error", `must be a string, got ${describe(o.error)}`);
  return ok(o as unknown as Op);
}
