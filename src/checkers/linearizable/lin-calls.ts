/**
 * From a Jepsen-style event history (invokes and completions) to calls: one record per
 * invoke/completion pair, with Jepsen's meaning of each completion type.
 *
 * - `ok`: the call took effect between its invoke and its completion; the completion's fields
 *   are what it observed.
 * - `fail`: the call certainly did not take effect; it is dropped.
 * - `info`, or no completion before the history ends: the call may have taken effect at any
 *   point after its invoke, or never; nothing it observed is known (`pending`).
 *
 * Each process has at most one call open; an invoke while one is open is bad input, and so is
 * a completion with none open.
 */
import type { EdnValue } from "../../formats/edn.js";
import { ednGet } from "../../formats/edn.js";
import type { JepsenEvent } from "../../formats/jepsen-edn.js";
import type { Op } from "../../history/op.js";
import { err, type InputError, ok, type Result } from "../../result.js";

export interface CallRecord {
  process: number | string;
  f: string;
  /** History index of the invoke. */
  invokeIndex: number;
  /** History index of the `ok` or `info` completion, if there was one. */
  completeIndex?: number;
  /** True when the outcome is unknown (`info`, or never completed). */
  pending: boolean;
  /** The completion's `value` for `ok` calls (Knossos's rule), the invoke's otherwise. */
  value: unknown;
  /** Lock name (lockcheck histories), if any. */
  lock?: string;
  /** Key (key-value histories), if any. */
  key?: unknown;
  /** Fencing token an acquire received, if any. */
  token?: bigint;
  /** Time (ns since start) of the completion, or of the invoke when there is none, if known. */
  time?: number;
}

interface EventView {
  index: number;
  process: number | string;
  type: "invoke" | "ok" | "fail" | "info";
  f: string;
  time?: number;
  value?: unknown;
}

/**
 * Pairs invokes with completions and builds each call's record: the fields every format
 * shares are filled here; `addFields` adds the format's own (lock, key, token) from the invoke
 * and from `source` — the completion of an `ok` call, the invoke of a pending one.
 */
function pair<E extends EventView>(
  events: readonly E[],
  addFields: (record: CallRecord, invoke: E, source: E) => void,
  skip: (e: E) => boolean,
): Result<CallRecord[], InputError> {
  interface Slot {
    invoke: E;
    completion?: E;
  }
  const open = new Map<number | string, Slot>();
  const slots: Slot[] = [];
  for (const e of events) {
    if (skip(e)) continue;
    if (e.type === "invoke") {
      if (open.has(e.process)) {
        return err({
          field: `index ${e.index}`,
          message: `process ${e.process} invoked while a call was open`,
        });
      }
      const slot: Slot = { invoke: e };
      open.set(e.process, slot);
      slots.push(slot);
      continue;
    }
    const slot = open.get(e.process);
    if (slot === undefined) {
      return err({
        field: `index ${e.index}`,
        message: `${e.type} of process ${e.process} without an open invoke`,
      });
    }
    if (slot.invoke.f !== e.f) {
      return err({
        field: `index ${e.index}`,
        message: `completion :f ${e.f} does not match invoke :f ${slot.invoke.f}`,
      });
    }
    open.delete(e.process);
    slot.completion = e;
  }
  const calls: CallRecord[] = [];
  for (const { invoke, completion } of slots) {
    if (completion?.type === "fail") continue;
    const pending = completion === undefined || completion.type === "info";
    const source = pending ? invoke : completion;
    const record: CallRecord = {
      process: invoke.process,
      f: invoke.f,
      invokeIndex: invoke.index,
      pending,
      value: source.value,
    };
    if (completion !== undefined) record.completeIndex = completion.index;
    const time = (completion ?? invoke).time;
    if (time !== undefined) record.time = time;
    addFields(record, invoke, source);
    calls.push(record);
  }
  return ok(calls);
}

/** Calls of a lockcheck history (acquire, release, write; nemesis ops are skipped). */
export function callsFromHistory(ops: readonly Op[]): Result<CallRecord[], InputError> {
  type ClientView = Op & EventView;
  return pair(
    ops as readonly ClientView[],
    (record, invoke, source) => {
      if ("lock" in invoke) record.lock = invoke.lock;
      if (!record.pending && "token" in source && source.token !== undefined) record.token = source.token;
    },
    (op) => op.process === "nemesis",
  );
}

/** Calls of a Jepsen EDN history; ops of non-integer processes (`:nemesis`) are skipped. */
export function callsFromJepsen(events: readonly JepsenEvent[]): Result<CallRecord[], InputError> {
  return pair(
    events,
    (record, invoke, source) => {
      const key = ednGet(invoke.fields, "key");
      if (key !== undefined) record.key = key;
      const token = tokenOf(ednGet(source.fields, "token"));
      if (!record.pending && token !== undefined) record.token = token;
    },
    (e) => typeof e.process !== "number",
  );
}

function tokenOf(v: EdnValue | undefined): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  return undefined;
}
