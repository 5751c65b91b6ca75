/**
 * A key-value store of strings, as Porcupine's kv model defines it: every key starts as "";
 * `get k` returns its value, `put k v` sets it, `append k v` appends `v` to it.
 *
 * Keys are independent, so `kvModel` checks the history one key at a time
 * (P-compositionality). `kvWholeModel` checks all keys together instead — the same verdicts,
 * far more work — to compare with Porcupine's unpartitioned kv benchmark.
 *
 * Values only grow by appends, and the search compares states constantly, so each model
 * instance interns value strings to small numbers: a state is a number (one key) or a short
 * array of numbers (all keys), whatever the values' length. Make a fresh model per check.
 */
import { type Model, partitionBy } from "./model.js";

export interface KvInput {
  f: "get" | "put" | "append";
  key: string;
  /** The value to put or append; ignored by `get`. */
  value: string;
}

/** What a `get` returned; `put` and `append` observe nothing. `undefined` = unknown. */
export interface KvOutput {
  value?: string;
}

/** Value strings ↔ numbers; id 0 is "". Appends are remembered per (value, suffix). */
function valueTable() {
  const ids = new Map<string, number>([["", 0]]);
  const values: string[] = [""];
  const appended: Map<string, number>[] = [];
  const intern = (v: string): number => {
    let id = ids.get(v);
    if (id === undefined) {
      id = values.length;
      values.push(v);
      ids.set(v, id);
    }
    return id;
  };
  return {
    value: (id: number): string => values[id] as string,
    intern,
    /** The value id after `input` in value `id`, or undefined if a get saw something else. */
    step(id: number, input: KvInput, output: KvOutput | undefined): number | undefined {
      if (input.f === "get") return output?.value === undefined || output.value === values[id] ? id : undefined;
      if (input.f === "put") return intern(input.value);
      let memo = appended[id];
      if (memo === undefined) {
        memo = new Map();
        appended[id] = memo;
      }
      let next = memo.get(input.value);
      if (next === undefined) {
        next = intern((values[id] as string) + input.value);
        memo.set(input.value, next);
      }
      return next;
    },
  };
}

function describeKvOp(input: KvInput, output: KvOutput | undefined): string {
  const k = JSON.stringify(input.key);
  if (input.f === "get") {
    return `get ${k} → ${output?.value === undefined ? "unknown" : JSON.stringify(output.value)}`;
  }
  return `${input.f} ${k} ${JSON.stringify(input.value)}`;
}

/** One key's value (as an interned number), checked key by key. */
export function kvModel(): Model<number, KvInput, KvOutput> {
  const table = valueTable();
  return {
    name: "kv",
    init: () => 0,
    step: table.step,
    key: (id) => id,
    partition: (ops) => partitionBy(ops, "key", (input) => input.key),
    describeOp: describeKvOp,
    describeState: (id) => `value = ${JSON.stringify(table.value(id))}`,
  };
}

/** All keys at once: the value number of each key, by key number (absent = ""). */
export type KvWholeState = readonly number[];

export function kvWholeModel(): Model<KvWholeState, KvInput, KvOutput> {
  const table = valueTable();
  const keyIds = new Map<string, number>();
  const keyNames: string[] = [];
  const keyId = (k: string): number => {
    let id = keyIds.get(k);
    if (id === undefined) {
      id = keyNames.length;
      keyNames.push(k);
      keyIds.set(k, id);
    }
    return id;
  };
  return {
    name: "kv",
    init: () => [],
    step(state, input, output) {
      const k = keyId(input.key);
      const current = state[k] ?? 0;
      const next = table.step(current, input, output);
      if (next === undefined) return undefined;
      if (next === current) return state;
      const copy = state.slice();
      for (let i = copy.length; i < k; i++) copy.push(0);
      copy[k] = next;
      return copy;
    },
    key(state) {
      let end = state.length;
      while (end > 0 && state[end - 1] === 0) end--;
      return state.slice(0, end).join(",");
    },
    describeOp: describeKvOp,
    describeState(state) {
      const parts = state.flatMap((id, k) => (id === 0 ? [] : [`${keyNames[k]}=${JSON.stringify(table.value(id))}`]));
      return parts.length === 0 ? "all keys empty" : parts.join(", ");
    },
  };
}
