/**
 * Jepsen history.edn ↔ lockcheck history, for the ops that map.
 *
 * Import (`jepsenToOps`, `readJepsenEdnFile`), from the op maps Jepsen writes
 * (`{:index 0, :time 12, :type :invoke, :process 3, :f :acquire, :value nil}`):
 * - `:f` :acquire/:lock → acquire, :release/:unlock → release, :write → write; nemesis
 *   (`:process :nemesis`) :f of the same name as ours (pause, crash, partition, …), plus
 *   :kill → crash, :start → partition, :stop → heal. Ops whose :f does not map (reads, cas,
 *   other faults) are dropped with one warning per :f; so are ops of other keyword processes.
 * - Lock fields come from `:lock`, `:grant`, `:token`, `:accepted`, `:seq`, `:node`, `:error`,
 *   `:ttlMs` when present (what `opToJepsenEdn` writes). Otherwise: the lock is "lock"; an
 *   acquire `ok`'s token is its `:value` when that is an integer, and its grant is
 *   "<process>:<n>" (the process's n-th granted acquire, from 0); a write belongs to its
 *   process's latest grant and presents that grant's token. A write with no `:accepted` that completed `ok` counts as
 *   accepted; Jepsen's `:fail` means it did not happen.
 * - `:index` is kept when present (else the op's position); a missing `:time` repeats the
 *   previous one. The result is validated like a JSONL file; since Jepsen writes one op per
 *   line, error "lines" are op positions counted from 1.
 * Export (`opToJepsenEdn`, `writeJepsenEdn`): every op, one map per line, with our fields as
 * extra keys; `:value` as EDN (JSON objects become maps with keyword keys).
 */
import { readFile } from "node:fs/promises";
import { NEMESIS_FS, type NemesisF, type Op } from "../history/op.js";
import { createHistoryValidator } from "../history/validate.js";
import { writeLines } from "../history/write.js";
import { err, type InputError, ok, type Result } from "../result.js";
import { type EdnValue, ednGet, isEdnMap, keywordName } from "./edn.js";
import { type JepsenEvent, parseJepsenEdn } from "./jepsen-edn.js";

const DEFAULT_LOCK = "lock";
const CLIENT_F: Record<string, "acquire" | "release" | "write"> = {
  acquire: "acquire",
  lock: "acquire",
  release: "release",
  unlock: "release",
  write: "write",
};
const NEMESIS_F: Record<string, NemesisF> = {
  ...Object.fromEntries(NEMESIS_FS.map((f) => [f, f])),
  kill: "crash",
  start: "partition",
  stop: "heal",
};

/** An EDN value as plain JSON-able data: keywords and symbols as their names, big integers as strings. */
function toPlain(v: EdnValue): unknown {
  if (v === null || typeof v === "boolean" || typeof v === "number" || typeof v === "string") return v;
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map(toPlain);
  if ("kw" in v) return v.kw;
  if ("sym" in v) return v.sym;
  if ("char" in v) return v.char;
  if ("list" in v) return v.list.map(toPlain);
  if ("set" in v) return v.set.map(toPlain);
  if ("tag" in v) return toPlain(v.value);
  const out: Record<string, unknown> = {};
  if (!isEdnMap(v)) return null;
  for (const [k, val] of v.map) out[typeof k === "string" ? k : String(toPlain(k))] = toPlain(val);
  return out;
}

function text(v: EdnValue | undefined): string | undefined {
  if (typeof v === "string") return v;
  return keywordName(v) ?? (typeof v === "number" || typeof v === "bigint" ? String(v) : undefined);
}

function integer(v: EdnValue | undefined): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return undefined;
}

/** Maps Jepsen events to lockcheck ops and validates them. */
export function jepsenToOps(
  events: readonly JepsenEvent[],
  file?: string,
): Result<{ ops: Op[]; warnings: InputError[] }, InputError[]> {
  const ops: Op[] = [];
  const dropped = new Map<string, number>();
  const grantsOf = new Map<number, number>();
  const current = new Map<number, { grant: string; token: bigint | undefined }>();
  const positions: number[] = [];
  let time = 0;
  events.forEach((e, position) => {
    if (typeof e.time === "number" && Number.isFinite(e.time)) time = Math.max(0, Math.trunc(e.time));
    const fields = e.fields;
    const extra: Record<string, unknown> = {};
    const error = text(ednGet(fields, "error"));
    if (error !== undefined) extra.error = error;
    if (e.value !== null) extra.value = toPlain(e.value);
    if (e.process === "nemesis") {
      const f = NEMESIS_F[e.f];
      if (f === undefined) {
        dropped.set(`nemesis :${e.f}`, (dropped.get(`nemesis :${e.f}`) ?? 0) + 1);
        return;
      }
      const node = text(ednGet(fields, "node"));
      ops.push({
        index: e.index,
        time,
        process: "nemesis",
        type: e.type,
        f,
        ...(node && { node }),
        ...extra,
      } as Op);
      positions.push(position);
      return;
    }
    const f = CLIENT_F[e.f];
    if (typeof e.process !== "number" || f === undefined) {
      const what = typeof e.process === "number" ? `:${e.f}` : `process :${e.process}`;
      dropped.set(what, (dropped.get(what) ?? 0) + 1);
      return;
    }
    const p = e.process;
    const lock = text(ednGet(fields, "lock")) ?? DEFAULT_LOCK;
    const explicitToken = integer(ednGet(fields, "token"));
    const op: Record<string, unknown> = { index: e.index, time, process: p, type: e.type, f, lock, ...extra };
    if (f === "acquire") {
      const ttlMs = integer(ednGet(fields, "ttlMs"));
      if (ttlMs !== undefined && ttlMs >= 0n && ttlMs <= BigInt(Number.MAX_SAFE_INTEGER))
        op.ttlMs = Number(ttlMs);
      if (e.type === "ok") {
        const n = grantsOf.get(p) ?? 0;
        grantsOf.set(p, n + 1);
        const grant = text(ednGet(fields, "grant")) ?? `${p}:${n}`;
        const token = explicitToken ?? integer(e.value);
        current.set(p, { grant, token });
        op.grant = grant;
        if (token !== undefined) op.token = token;
      }
    } else {
      const held = current.get(p);
      const grant = text(ednGet(fields, "grant")) ?? held?.grant ?? (f === "write" ? `${p}:none` : undefined);
      if (grant !== undefined) op.grant = grant;
      const token = explicitToken ?? (f === "write" && grant === held?.grant ? held?.token : undefined);
      if (f === "write" && token !== undefined) op.token = token;
      const accepted = ednGet(fields, "accepted");
      if (f === "write" && typeof accepted === "boolean") op.accepted = accepted;
      const seq = integer(ednGet(fields, "seq"));
      if (f === "write" && e.type !== "invoke" && seq !== undefined && seq >= 0n) op.seq = seq;
    }
    ops.push(op as unknown as Op);
    positions.push(position);
  });

  const where = file === undefined ? {} : { file };
  const sink = { errors: [] as InputError[], warnings: [] as InputError[] };
  const validator = createHistoryValidator(file, sink);
  ops.forEach((op, i) => {
    validator.check(op, positions[i]! + 1);
  });
  validator.finish();
  if (sink.errors.length > 0) return err(sink.errors);
  for (const [what, n] of dropped) {
    sink.warnings.push({
      ...where,
      message: `${n} ops with ${what} do not map to lock operations and were skipped`,
    });
  }
  return ok({ ops, warnings: sink.warnings });
}

/** Reads and imports a Jepsen history.edn file. */
export async function readJepsenEdnFile(
  path: string,
): Promise<Result<{ ops: Op[]; warnings: InputError[] }, InputError[]>> {
  let source: string;
  try {
    source = await readFile(path, "utf8");
  } catch (e) {
    return err([{ file: path, message: `cannot read the history: ${(e as Error).message}` }]);
  }
  const events = parseJepsenEdn(source);
  if (!events.ok) return err([{ file: path, ...events.error }]);
  return jepsenToOps(events.value, path);
}

const KEYWORD_NAME = /^[A-Za-z*+!_?<>=-][\w*+!?<>=.-]*$/;

/** Plain data as EDN text. */
export function toEdn(v: unknown): string {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "nil";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(toEdn).join(" ")}]`;
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  return `{${entries.map(([k, x]) => `${KEYWORD_NAME.test(k) ? `:${k}` : JSON.stringify(k)} ${toEdn(x)}`).join(", ")}}`;
}

/** One op as one Jepsen op map (no newline). */
export function opToJepsenEdn(op: Op): string {
  const parts = [
    `:index ${op.index}`,
    `:time ${op.time}`,
    `:type :${op.type}`,
    `:process ${op.process === "nemesis" ? ":nemesis" : toEdn(op.process)}`,
    `:f :${op.f}`,
    `:value ${toEdn(op.value)}`,
  ];
  const o = op as unknown as Record<string, unknown>;
  for (const key of ["lock", "grant", "token", "accepted", "seq", "node", "error", "ttlMs"]) {
    if (o[key] !== undefined) parts.push(`:${key} ${toEdn(o[key])}`);
  }
  return `{${parts.join(", ")}}`;
}

/** Writes ops as a Jepsen history.edn (one op map per line). */
export function writeJepsenEdn(
  path: string,
  ops: Iterable<Op> | AsyncIterable<Op>,
): Promise<Result<void, InputError>> {
  return writeLines(path, ops, opToJepsenEdn);
}
