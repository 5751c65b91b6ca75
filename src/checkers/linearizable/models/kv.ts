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
 * suffix's length, not the value's. Lookup is by a 64-bit rolling hash of the content; a hash
 * match is confirmed exactly (same construction, or equal text), so collisions cost time,
 * never correctness.
 */
function valueTable() {
  // Per value, FIELDS int32s in one array (one cache line, no per-value objects).
  const FIELDS = 6;
  const PARENT = 0;
  const SUFFIX = 1;
  const LENGTH = 2;
  const HASH_HI = 3;
  const HASH_LO = 4;
  const SAME_HASH = 5;
  let rows = new Int32Array(FIELDS * 1024);
  let count = 1;
  rows[PARENT] = -1;
  rows[SUFFIX] = 0;
  rows[SAME_HASH] = -1;
  /** Suffix strings, by number; 0 is "". */
  const suffixes: string[] = [""];
  const suffixIds = new Map<string, number>([["", 0]]);
  /** First value id with a given hash; later ones are chained through SAME_HASH. */
  const byHash = new IntPairMap(1 << 12);
  /** Ids of whole strings already interned (puts, get results), by content. */
  const whole = new Map<string, number>([["", 0]]);

  const field = (id: number, f: number): number => rows[id * FIELDS + f] as number;
  const text = (id: number): string => {
    const parts: string[] = [];
    for (let i = id; i > 0; i = field(i, PARENT)) parts.push(suffixes[field(i, SUFFIX)] as string);
    return parts.reverse().join("");
  };
  const suffixId = (tail: string): number => {
    let id = suffixIds.get(tail);
    if (id === undefined) {
      id = suffixes.length;
      suffixes.push(tail);
      suffixIds.set(tail, id);
    }
    return id;
  };

  /** The id of (value `base`) + `tail`, creating it if new. */
  const extend = (base: number, tail: string): number => {
    let hi = field(base, HASH_HI);
    let lo = field(base, HASH_LO);
    for (let i = 0; i < tail.length; i++) {
      const c = tail.charCodeAt(i);
      hi = (Math.imul(hi, 0x01000193) ^ c) | 0;
      lo = (Math.imul(lo ^ c, 0x5bd1e995) + 0x7f4a7c15) | 0;
    }
    const sfx = suffixId(tail);
    const len = field(base, LENGTH) + tail.length;
    const first = byHash.get(hi, lo);
    let content: string | undefined;
    for (let c = first; c !== -1; c = field(c, SAME_HASH)) {
      if (field(c, LENGTH) !== len) continue;
      if (field(c, PARENT) === base && field(c, SUFFIX) === sfx) return c;
      content ??= text(base) + tail;
      if (text(c) === content) return c;
    }
    if ((count + 1) * FIELDS > rows.length) {
      const grown = new Int32Array(rows.length * 2);
      grown.set(rows);
      rows = grown;
    }
    const id = count++;
    const at = id * FIELDS;
    rows[at + PARENT] = base;
    rows[at + SUFFIX] = sfx;
    rows[at + LENGTH] = len;
    rows[at + HASH_HI] = hi;
    rows[at + HASH_LO] = lo;
    rows[at + SAME_HASH] = first;
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
      return extend(id, input.value);
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
    statesAreIds: true,
    partition: (ops) => partitionBy(ops, "key", (input) => input.key),
    describeOp: describeKvOp,
    describeState: (id) => `the value ${JSON.stringify(table.text(id))}`,
  };
}

/**
 * All keys at once. A state is a canonical id for the vector of value ids by key number
 * (absent keys hold ""): vectors are hash-consed like values, with a hash updated in O(1)
 * when one key changes, so a step costs O(keys) only when it makes a new state.
 */
export type KvWholeState = number;

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
  // State id → its vector (shorter vectors are zero-extended) and the two hash halves.
  const vectors: (readonly number[])[] = [[]];
  const hashA: number[] = [0];
  const hashB: number[] = [0];
  const byHash = new IntPairMap(1 << 12);
  byHash.set(0, 0, 0);
  const sameHash: number[] = [-1];
  // A key holding value v contributes these terms (0 for the empty value), summed mod 2^32.
  const termA = (k: number, v: number) => (v === 0 ? 0 : Math.imul((k + 1) * 0x9e3779b1 + v, 0x85ebca6b) ^ v);
  const termB = (k: number, v: number) =>
    v === 0 ? 0 : Math.imul(v * 0x27d4eb2f + k, 0xc2b2ae35) ^ (k << 7);
  const sameVector = (x: readonly number[], y: readonly number[]): boolean => {
    const n = Math.max(x.length, y.length);
    for (let i = 0; i < n; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return false;
    return true;
  };

  return {
    name: "kv",
    init: () => 0,
    step(state, input, output) {
      const k = keyId(input.key);
      const vector = vectors[state] as readonly number[];
      const current = vector[k] ?? 0;
      const next = table.step(current, input, output);
      if (next === undefined) return undefined;
      if (next === current) return state;
      const a = ((hashA[state] as number) - termA(k, current) + termA(k, next)) | 0;
      const b = ((hashB[state] as number) - termB(k, current) + termB(k, next)) | 0;
      const changed = vector.slice();
      for (let i = changed.length; i < k; i++) changed.push(0);
      changed[k] = next;
      const first = byHash.get(a, b);
      for (let c = first; c !== -1; c = sameHash[c] as number) {
        if (sameVector(vectors[c] as readonly number[], changed)) return c;
      }
      const id = vectors.length;
      vectors.push(changed);
      hashA.push(a);
      hashB.push(b);
      sameHash.push(first);
      byHash.set(a, b, id);
      return id;
    },
    key: (state) => state,
    statesAreIds: true,
    describeOp: describeKvOp,
    describeState(state) {
      const parts = (vectors[state] as readonly number[]).flatMap((id, k) =>
        id === 0 ? [] : [`${keyNames[k]}=${JSON.stringify(table.text(id))}`],
      );
      return parts.length === 0 ? "every key empty" : `the store holding ${parts.join(", ")}`;
    },
  };
}
