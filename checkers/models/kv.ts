/**
 * A key-value store of strings, as Porcupine's kv model defines it: every key starts as "";
 * `get k` returns its value, `put k v` sets it, `append k v` appends `v` to it.
 *
 * Keys are independent, so by default the history is checked one key at a time
 * (P-compositionality). `kvWholeModel` checks all keys together instead — the same verdicts,
 * far more work — to compare with Porcupine's unpartitioned kv benchmark.
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

function stepValue(current: string, input: KvInput, output: KvOutput | undefined): string | undefined {
  if (input.f === "put") return input.value;
  if (input.f === "append") return current + input.value;
  return output?.value === undefined || output.value === current ? current : undefined;
}

function describeKvOp(input: KvInput, output: KvOutput | undefined): string {
  const k = JSON.stringify(input.key);
  if (input.f === "get") {
    return `get ${k} → ${output?.value === undefined ? "unknown" : JSON.stringify(output.value)}`;
  }
  return `${input.f} ${k} ${JSON.stringify(input.value)}`;
}

/** One key's value; used per partition. */
export const kvModel: Model<string, KvInput, KvOutput> = {
  name: "kv",
  init: () => "",
  step: stepValue,
  key: (value) => value,
  partition: (ops) => partitionBy(ops, "key", (input) => input.key),
  describeOp: describeKvOp,
  describeState: (value) => `value = ${JSON.stringify(value)}`,
};

/**
 * All keys at once, as an immutable map. Values only grow by appends and are compared often,
 * so each distinct value string is interned to a small number once, and a state is the sorted
 * list of (key, value number) pairs: its cache key is short whatever the values' length.
 */
export type KvWholeState = ReadonlyMap<string, number>;

export function kvWholeModel(): Model<KvWholeState, KvInput, KvOutput> {
  const valueIds = new Map<string, number>([["", 0]]);
  const values: string[] = [""];
  const intern = (v: string): number => {
    let id = valueIds.get(v);
    if (id === undefined) {
      id = values.length;
      values.push(v);
      valueIds.set(v, id);
    }
    return id;
  };
  return {
    name: "kv",
    init: () => new Map(),
    step(state, input, output) {
      const current = values[state.get(input.key) ?? 0] ?? "";
      const next = stepValue(current, input, output);
      if (next === undefined) return undefined;
      if (input.f === "get") return state;
      const copy = new Map(state);
      copy.set(input.key, intern(next));
      return copy;
    },
    key(state) {
      const parts: string[] = [];
      for (const [k, id] of state) if (id !== 0) parts.push(`${JSON.stringify(k)}=${id}`);
      return parts.sort().join(",");
    },
    describeOp: describeKvOp,
    describeState(state) {
      const parts = [...state].filter(([, id]) => id !== 0).map(([k, id]) => `${k}=${JSON.stringify(values[id])}`);
      return parts.length === 0 ? "all keys empty" : parts.sort().join(", ");
    },
  };
}
