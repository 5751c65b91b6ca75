/**
 * One JSONL line → one op, checking everything that can be checked from the line alone
 * (field types and allowed values). Checks that need earlier lines (pairing, order) are in
 * validate.ts.
 *
 * Accepted input, beyond what serialize.ts writes: `null` for an optional field means the
 * field is absent; a token may be a JSON integer or a decimal string, and a JSON integer too
 * large for a double is recovered exactly from the line's text, by the position of the
 * top-level `token` key in the JSON (the last one if it is repeated, as JSON.parse keeps).
 * Keys this file does not know are kept as they are (other tools may add fields).
 */
import { err, type InputError, ok, type Result } from "../result.js";
import { emptyOpFacts, NEMESIS, type OpFacts } from "./facts.js";
import { type ClientId, NEMESIS_FS, type Op, type OpF, type OpType } from "./op.js";
import { topLevelValueStart } from "./top-level-key.js";

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

const PLAIN_INTEGER = /-?\d+(?![.eE\d])/y;

/**
 * The exact digits of the integer that JSON.parse read (rounded) as the line's top-level
 * `key` (`token` or `seq`), found by position in the line's JSON structure (top-level-key.ts), never by
 * searching the text: a "token" nested in `value` or inside a string is not it. Undefined when
 * the number is not written as plain digits (1e20, 1.0e20): such a token must be a string.
 */
function rawIntegerDigits(line: string, key: string): string | undefined {
  const start = topLevelValueStart(line, key);
  if (start < 0) return undefined;
  PLAIN_INTEGER.lastIndex = start;
  return PLAIN_INTEGER.exec(line)?.[0];
}

/**
 * The last token text (or JSON number) each client process presented, and its BigInt: a
 * holder's acquire `ok` and its writes all carry the same token, so most tokens are converted
 * once instead of once per op. Keyed by exact text, so a hit always yields BigInt(text).
 */
const TOKEN_CACHE_SLOTS = 4096;
const cachedTokenRaw: unknown[] = [];
const cachedToken: bigint[] = [];

function parseToken(v: unknown, line: string, process: number): bigint | string {
  const slot = process >= 0 && process < TOKEN_CACHE_SLOTS ? process : -1;
  if (slot >= 0 && cachedTokenRaw[slot] === v) return cachedToken[slot]!;
  let token: bigint;
  if (typeof v === "number") {
    if (!Number.isInteger(v)) return `token must be an integer, got ${v}`;
    if (Number.isSafeInteger(v)) token = BigInt(v);
    else {
      // Not cached: the same double stands for many integers, and the text decides.
      const digits = rawIntegerDigits(line, "token");
      return digits !== undefined
        ? BigInt(digits)
        : `token ${v} is too large to read exactly; write it as a string`;
    }
  } else if (typeof v === "string" && DECIMAL.test(v)) token = BigInt(v);
  else return `token must be an integer (a JSON integer or a decimal string), got ${describe(v)}`;
  if (slot >= 0) {
    cachedTokenRaw[slot] = v;
    cachedToken[slot] = token;
  }
  return token;
}

/** A write's `seq`: a non-negative integer, as a JSON integer or a decimal string. */
function parseSeq(v: unknown, line: string): bigint | string {
  let seq: bigint;
  if (typeof v === "number" && Number.isSafeInteger(v)) seq = BigInt(v);
  else if (typeof v === "number" && Number.isInteger(v)) {
    const digits = rawIntegerDigits(line, "seq");
    if (digits === undefined) return `${v} is too large to read exactly; write it as a string`;
    seq = BigInt(digits);
  } else if (typeof v === "string" && DECIMAL.test(v)) seq = BigInt(v);
  else return `must be an integer (a JSON integer or a decimal string), got ${describe(v)}`;
  return seq < 0n ? `must not be negative, got ${seq}` : seq;
}

function failure(file: string | undefined, line: number, field: string | undefined, message: string) {
  return err<InputError>({
    ...(file !== undefined && { file }),
    line,
    ...(field !== undefined && { field }),
    message,
  });
}

const isOpType = (t: unknown): t is OpType => t === "invoke" || t === "ok" || t === "fail" || t === "info";
const isClientF = (f: unknown) => f === "write" || f === "acquire" || f === "release";

/**
 * Parses and checks one line. `lineNo` is 1-based; `file` is only used in error locations.
 * Never throws.
 */
export function parseOpLine(line: string, lineNo: number, file?: string): Result<Op, InputError> {
  const facts = emptyOpFacts();
  const problem = parseOpLineInto(line, lineNo, file, facts);
  return problem === undefined ? ok(facts.op as Op) : err(problem);
}

/** An optional field's value, with `null` meaning absent (the key is then removed from the op). */
function optional(o: Record<string, unknown>, key: string, v: unknown): unknown {
  if (v !== null) return v;
  delete o[key];
  return undefined;
}

function problem(
  file: string | undefined,
  line: number,
  field: string | undefined,
  message: string,
): InputError {
  return failure(file, line, field, message).error;
}

/**
 * parseOpLine for the one-pass reader: fills `facts` (see facts.ts) from the line and returns
 * undefined, or returns the problem. Written for speed: it runs once per op on million-op
 * files, so it reads each field of the parsed object once.
 */
export function parseOpLineInto(
  line: string,
  lineNo: number,
  file: string | undefined,
  facts: OpFacts,
): InputError | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    return problem(file, lineNo, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return problem(file, lineNo, undefined, `expected a JSON object (one op per line), got ${describe(raw)}`);
  }
  const o = raw as Record<string, unknown>;
  const index = o.index;
  if (!isNonNegativeInt(index)) {
    return problem(file, lineNo, "index", `must be a non-negative integer, got ${describe(index)}`);
  }
  const time = o.time;
  if (!isNonNegativeInt(time)) {
    return problem(
      file,
      lineNo,
      "time",
      `must be a non-negative integer (ns since start), got ${describe(time)}`,
    );
  }
  const process = o.process;
  const nemesis = process === "nemesis";
  if (!nemesis && !isNonNegativeInt(process) && (typeof process !== "string" || process === "")) {
    return problem(
      file,
      lineNo,
      "process",
      `must be a client id (a non-negative integer or a non-empty string) or "nemesis", got ${describe(process)}`,
    );
  }
  const type = o.type;
  if (!isOpType(type)) {
    return problem(
      file,
      lineNo,
      "type",
      `unknown type ${describe(type)} (expected invoke, ok, fail or info)`,
    );
  }
  // Every optional key is read (once) so that a null is removed wherever it appears.
  const lock = optional(o, "lock", o.lock);
  const grant = optional(o, "grant", o.grant);
  const accepted = optional(o, "accepted", o.accepted);
  const node = optional(o, "node", o.node);
  const error = optional(o, "error", o.error);
  const rawToken = optional(o, "token", o.token);
  const rawSeq = optional(o, "seq", o.seq);
  const ttlMs = optional(o, "ttlMs", o.ttlMs);
  const f = o.f;
  if (nemesis) {
    if (typeof f !== "string" || !NEMESIS_F_SET.has(f)) {
      return problem(
        file,
        lineNo,
        "f",
        `unknown nemesis f ${describe(f)} (expected one of ${NEMESIS_FS.join(", ")})`,
      );
    }
    if (node !== undefined && typeof node !== "string") {
      return problem(file, lineNo, "node", `must be a string, got ${describe(node)}`);
    }
  } else {
    if (!isClientF(f)) {
      return problem(
        file,
        lineNo,
        "f",
        `unknown client f ${describe(f)} (expected acquire, release or write)`,
      );
    }
    if (typeof lock !== "string" || lock === "") {
      return problem(
        file,
        lineNo,
        "lock",
        `must be a non-empty string (the lock name), got ${describe(lock)}`,
      );
    }
    if (grant === undefined) {
      if (f === "write")
        return problem(file, lineNo, "grant", "a write must name the grant it was made under");
    } else if (typeof grant !== "string") {
      return problem(file, lineNo, "grant", `must be a string, got ${describe(grant)}`);
    }
    if (accepted !== undefined) {
      if (typeof accepted !== "boolean") {
        return problem(file, lineNo, "accepted", `must be true or false, got ${describe(accepted)}`);
      }
      if (f !== "write")
        return problem(file, lineNo, "accepted", `only writes to the resource have it, not ${f}`);
    }
  }
  if (ttlMs !== undefined) {
    if (f !== "acquire")
      return problem(
        file,
        lineNo,
        "ttlMs",
        `only an acquire has it (the lease time asked for), not ${describe(f)}`,
      );
    if (!isNonNegativeInt(ttlMs))
      return problem(file, lineNo, "ttlMs", `must be a non-negative integer (ms), got ${describe(ttlMs)}`);
  }
  let seq: bigint | undefined;
  if (rawSeq !== undefined) {
    if (f !== "write" || type === "invoke")
      return problem(file, lineNo, "seq", "only a write's completion has it (the resource's apply order)");
    const parsed = parseSeq(rawSeq, line);
    if (typeof parsed === "string") return problem(file, lineNo, "seq", parsed);
    o.seq = parsed;
    seq = parsed;
  }
  let token: bigint | undefined;
  if (rawToken !== undefined) {
    const parsed = parseToken(rawToken, line, typeof process === "number" ? process : -1);
    if (typeof parsed === "string") return problem(file, lineNo, "token", parsed);
    o.token = parsed;
    token = parsed;
  }
  if (error !== undefined && typeof error !== "string") {
    return problem(file, lineNo, "error", `must be a string, got ${describe(error)}`);
  }
  facts.op = o as unknown as Op;
  facts.index = index;
  facts.time = time;
  facts.type = type;
  facts.f = f as OpF;
  if (nemesis) {
    facts.process = NEMESIS;
    facts.lock = "";
    facts.grant = undefined;
    facts.token = undefined;
    facts.accepted = undefined;
    facts.seq = undefined;
    facts.ttlMs = undefined;
    facts.node = node as string | undefined;
  } else {
    facts.process = process as ClientId;
    facts.lock = lock as string;
    facts.grant = grant as string | undefined;
    // As factsOf reads it: only acquires and writes present a token.
    facts.token = f === "release" ? undefined : token;
    facts.accepted = accepted as boolean | undefined;
    facts.seq = seq;
    facts.ttlMs = ttlMs as number | undefined;
    facts.node = undefined;
  }
  return undefined;
}
