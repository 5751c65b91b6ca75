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
import { IntPairMap } from "../int-pair-map.js";
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

/**
 * Value strings ↔ numbers, canonically: equal strings get equal numbers, so comparing states
 * is comparing numbers. Id 0 is "". A value made by an append is stored as (earlier value,
 * suffix) and never built as a string unless it must be compared or shown: appends cost the
 * suffix's length, not the value's. Lookup is by a 53-bit rolling hash of the content; a hash
 * match is confirmed by comparing the actual strings, so collisions cost time, never
 * correctness.
 */
function valueTable() {
  const parent: number[] = [-1];
  const suffix: string[] = [""];
  const length: number[] = [0];
  const hashHi: number[] = [0];
  const hashLo: number[] = [0];
  /** First id with a given hash; later ones are chained through `sameHash`. */
  const byHash = new IntPairMap();
  const sameHash: number[] = [-1];
  /** Suffix strings as small numbers, to key the append memo by number. */
  const suffixIds = new Map<string, number>();
  /** (value id, suffix id) → value id of the append. */
  const appended = new IntPairMap();
  /** Ids of whole strings already interned (puts, get results), by content. */
  const whole = new Map<string, number>([["", 0]]);

  const text = (id: number): string => {
    const parts: string[] = [];
    for (let i = id; i > 0; i = parent[i] as number) parts.push(suffix[i] as string);
    return parts.reverse().join("");
  };

  /** The id of (value `base`) + `tail`, creating it if new. */
  const extend = (base: number, tail: string): number => {
    let hi = hashHi[base] as number;
    let lo = hashLo[base] as number;
    for (let i = 0; i < tail.length; i++) {
      const c = tail.charCodeAt(i);
      hi = (Math.imul(hi, 0x01000193) ^ c) | 0;
      lo = (Math.imul(lo ^ c, 0x5bd1e995) + 0x7f4a7c15) | 0;
    }
    const len = (length[base] as number) + tail.length;
    const first = byHash.get(hi, lo);
    let content: string | undefined;
    for (let c = first; c !== -1; c = sameHash[c] as number) {
      if (length[c] !== len) continue;
      content ??= text(base) + tail;
      if (text(c) === content) return c;
    }
    const id = parent.length;
    parent.push(base);
    suffix.push(tail);
    length.push(len);
    hashHi.push(hi);
    hashLo.push(lo);
    sameHash.push(first);
    byHash.set(hi, lo, id);
    return id;
  };
  const intern = (v: string): number => {
    let id = whole.get(v);
    if (id === undefined) {
      id = extend(0, v);
      whole.set(v, id);
    }
    return id;
  };

  return {
    text,
    /** The value id after `input` in value `id`, or undefined if a get saw something else. */
    step(id: number, input: KvInput, output: KvOutput | undefined): number | undefined {
      if (input.f === "get")
        return output?.value === undefined || intern(output.value) === id ? id : undefined;
      if (input.f === "put") return intern(input.value);
      let sfx = suffixIds.get(input.value);
      if (sfx === undefined) {
        sfx = suffixIds.size;
        suffixIds.set(input.value, sfx);
      }
      let next = appended.get(id, sfx);
      if (next === -1) {
        next = extend(id, input.value);
        appended.set(id, sfx, next);
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
    describeState: (id) => `the value ${JSON.stringify(table.text(id))}`,
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
      const parts = state.flatMap((id, k) =>
        id === 0 ? [] : [`${keyNames[k]}=${JSON.stringify(table.text(id))}`],
      );
      return parts.length === 0 ? "every key empty" : `the store holding ${parts.join(", ")}`;
    },
  };
}
