/**
 * linearizable: is the history, as its clients observed it, linearizable with respect to a
 * sequential model? This is the question Jepsen answers with Knossos and Porcupine answers for
 * Go programs; lockcheck asks it of locks (models `mutex`, `owner-mutex`, `fenced-mutex`) and,
 * to meet the established corpora on their own ground, of registers and key-value stores.
 *
 * Algorithm: Wing & Gong's search with Lowe's just-in-time linearization and cache
 * ("Testing for linearizability", Lowe 2016), as Porcupine implements it. Calls and returns
 * sit in one time-ordered doubly linked list. Walking it from the front, a call may be
 * linearized now if the model allows it in the current state; it is then lifted out of the
 * list (call and return) and the walk restarts. Reaching a return means the op owning it had
 * to take effect already and none of the remaining candidates before it could: backtrack. The
 * cache holds every (set of linearized ops, model state) configuration reached; one reached
 * before is not explored again, since everything reachable from it was already explored.
 *
 * Representation, chosen for speed (the search is the hot loop):
 * - the linearized set is a bitset in 32-bit words with a 64-bit Zobrist hash (random words
 *   XORed in and out as ops are linearized and undone), so a cache probe costs one hash
 *   lookup and, on a hit, one comparison of stored words — never a hash over the whole set;
 * - the cache (checkers/linearizable/lin-config-cache.ts) stores each set compactly: the words around the
 *   earliest unlinearized op, not the whole history's, so memory per configuration follows
 *   how many ops overlap rather than how long the history is;
 * - model states are interned to small integers (or are ids already, `statesAreIds`), and
 *   (state, op) transitions of the first states are remembered in a table;
 * - the check is exact: no configuration is ever pruned on a hash match alone.
 *
 * Semantics:
 * - Intervals are closed: an op whose return time equals another's call time is concurrent
 *   with it (at equal times, calls are ordered before returns).
 * - An op with `ret = Infinity` (Jepsen's `:info`, or still open when the history ends) may
 *   take effect at any point after its call, or never: the search succeeds as soon as every
 *   op with a known return is linearized.
 * - P-compositionality: a model that partitions (per lock, per key) is checked part by part,
 *   and the history is linearizable iff every part is. Parts are searched round-robin, a
 *   slice at a time, and the first part found not linearizable ends the check: a quick
 *   failure is not hidden behind a long search of another part.
 * - Budget: past `timeLimitMs` or `memoryLimitMb` (both for the whole check, looked at
 *   between slices of 16k search steps), the verdict is `"unknown"` rather than a search that
 *   runs away.
 * - Ops that are interchangeable (same input and output, one's interval inside the other's
 *   on both ends) are only tried in one order: see `earlierTwins`.
 *
 * On a violation the search also yields the evidence a report needs. Every branch of a failed
 * search is stuck at some return; the latest such return R marks the shortest prefix of the
 * history that cannot be linearized (every op returning before R can be linearized, as the
 * branch stuck at R shows, and no linearization gets past R). The verdict names the op that
 * returns at R (the stuck op), the ops concurrent with it (the window: those that could be
 * ordered around it, and no order works), and the partial linearization of the branch stuck
 * at R that linearized the most ops — the longest prefix of the history the model explains.
 */

import type { Anomaly, StatValue, Verdict } from "../verdict.js";
import { IntPairMap } from "./int-pair-map.js";
import { ConfigCache, OpSet } from "./lin-config-cache.js";
import type { LinOp, Model, Partition, StateKey } from "./models/model.js";

export interface LinearizableOptions {
  /** Give up with `"unknown"` after this many milliseconds (whole check). Default: no limit. */
  timeLimitMs?: number;
  /**
   * Give up with `"unknown"` when the search tables (cache of configurations, remembered
   * transitions) of the parts being searched exceed this many MiB together. Default 2048.
   * Model states a model keeps in JavaScript objects are not counted.
   */
  memoryLimitMb?: number;
}

/** Why a part was not linearizable: indices into that part's ops. */
export interface LinFailure {
  /** The part's name (e.g. `lock "a"`), or "" when the model does not partition. */
  partition: string;
  /** The part's ops; the fields below index into this array. */
  ops: readonly LinOp<unknown, unknown>[];
  /** The op whose return ends the shortest prefix that cannot be linearized. */
  stuck: number;
  /** Ops linearized on the branch that got furthest, in linearization order. */
  partial: number[];
  /** Ops concurrent with `stuck` (their intervals overlap): no order of them around it works. */
  window: number[];
  /** Model state after `partial`, described. */
  stateAfterPartial: string;
}

export interface LinearizableResult {
  valid: true | false | "unknown";
  /** Why the answer is "unknown". */
  budget?: "time" | "memory";
  partitions: number;
  /** Parts fully checked (the check stops at the first failure or when out of budget). */
  partitionsChecked: number;
  ops: number;
  /** Distinct (linearized set, model state) configurations explored, over the parts finished. */
  statesExplored: number;
  /** Distinct model states seen, over the parts finished. */
  modelStates: number;
  /** Largest number of ops linearized on any branch of a failed part; 0 otherwise. */
  longestPartial: number;
  /** Peak bytes held by the search tables of the parts searched at the same time. */
  peakSearchBytes: number;
  failure?: LinFailure;
}

/** Checks `ops` against `model`; pure apart from reading the clock for the time budget. */
export function checkLinearizable<S, I, O>(
  model: Model<S, I, O>,
  ops: readonly LinOp<I, O>[],
  options: LinearizableOptions = {},
): LinearizableResult {
  const parts: Partition<I, O>[] = model.partition ? model.partition(ops) : [{ name: "", ops: [...ops] }];
  const deadline = options.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : now() + options.timeLimitMs;
  const memoryLimit = (options.memoryLimitMb ?? 2048) * 1024 * 1024;
  const result: LinearizableResult = {
    valid: true,
    partitions: parts.length,
    partitionsChecked: 0,
    ops: ops.length,
    statesExplored: 0,
    modelStates: 0,
    longestPartial: 0,
    peakSearchBytes: 0,
  };
  // Parts are searched round-robin, a slice at a time, as if in parallel: a part that fails
  // quickly is found even when another part's search is long (Porcupine runs parts in
  // parallel and stops at the first failure for the same reason).
  const running = parts.map((part) => ({ part, search: searchPart(model, part.ops), bytes: 0 }));
  while (running.length > 0) {
    for (let i = 0; i < running.length; i++) {
      const r = running[i] as (typeof running)[number];
      let step: IteratorResult<number, PartOutcome<S>>;
      try {
        step = r.search.next();
      } catch (e) {
        if (!(e instanceof OutOfStates)) throw e;
        result.valid = "unknown";
        result.budget = "memory";
        return result;
      }
      if (!step.done) {
        r.bytes = step.value;
        continue;
      }
      const outcome = step.value;
      running.splice(i--, 1);
      result.statesExplored += outcome.statesExplored;
      result.modelStates += outcome.modelStates;
      result.partitionsChecked++;
      if (outcome.kind === "illegal") {
        result.valid = false;
        result.longestPartial = outcome.partial.length;
        result.failure = {
          partition: r.part.name,
          ops: r.part.ops,
          stuck: outcome.stuck,
          partial: outcome.partial,
          window: outcome.window,
          stateAfterPartial: model.describeState(outcome.stateAfterPartial),
        };
        return result;
      }
    }
    const bytes = running.reduce((sum, r) => sum + r.bytes, 0);
    result.peakSearchBytes = Math.max(result.peakSearchBytes, bytes);
    const budget = bytes > memoryLimit ? "memory" : now() > deadline ? "time" : undefined;
    if (budget !== undefined) {
      result.valid = "unknown";
      result.budget = budget;
      return result;
    }
  }
  return result;
}

/**
 * The verdict for a checked history. `ops` in the anomaly are history positions (`LinOp.refs`):
 * the stuck op's invoke and completion first, then the window's ops'; `partialLinearization`
 * lists the invoke position of each linearized op, in linearization order.
 */
export function linearizableVerdict<S, I, O>(model: Model<S, I, O>, r: LinearizableResult): Verdict {
  const stats: Record<string, StatValue> = {
    model: model.name,
    ops: r.ops,
    partitions: r.partitions,
    partitionsChecked: r.partitionsChecked,
    statesExplored: r.statesExplored,
    modelStates: r.modelStates,
    longestPartialLinearization: r.longestPartial,
    searchMemoryMb: Math.round((r.peakSearchBytes / (1024 * 1024)) * 10) / 10,
  };
  if (r.budget !== undefined) stats.budgetExhausted = r.budget;
  const anomalies: Anomaly[] = [];
  const f = r.failure;
  if (f !== undefined) {
    const ops = f.ops as readonly LinOp<I, O>[];
    const stuck = ops[f.stuck] as LinOp<I, O>;
    const describe = (i: number): string => {
      const op = ops[i] as LinOp<I, O>;
      return `${model.describeOp(op.input, op.output)} [process ${op.process}, index ${op.refs[0] ?? "?"}]`;
    };
    const where = r.partitions > 1 ? ` on ${f.partition}` : "";
    const pending =
      f.window.length === 0
        ? "and no other operation was concurrent with it"
        : `and no order of it and the operations concurrent with it (${f.window.map(describe).join("; ")}) works`;
    const anomaly: Anomaly = {
      kind: "not-linearizable",
      ops: [f.stuck, ...f.window].flatMap((i) => (ops[i] as LinOp<I, O>).refs),
      explanation:
        `The history${where} is not linearizable for the ${model.name} model: everything before the ` +
        `completion of ${describe(f.stuck)} can be put in one order, but not that operation too. ` +
        `The longest such order (${plural(f.partial.length, "operation")}) leaves ${f.stateAfterPartial}, ${pending}.`,
      partialLinearization: f.partial.map((i) => (ops[i] as LinOp<I, O>).refs[0] ?? -1),
    };
    if (stuck.time !== undefined) anomaly.time = stuck.time;
    anomalies.push(anomaly);
  }
  return { checker: "linearizable", valid: r.valid, anomalies, stats };
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function now(): number {
  return performance.now();
}

type PartOutcome<S> = { statesExplored: number; modelStates: number } & (
  | { kind: "ok" }
  | { kind: "illegal"; stuck: number; partial: number[]; window: number[]; stateAfterPartial: S }
);

/** Thrown from deep in the search when model states no longer fit; ends the check with "unknown". */
class OutOfStates extends Error {}
const MAX_MAP_ENTRIES = (1 << 24) - 1;

/** Transition tables stop growing past this many entries (4 bytes each); beyond, the model is called directly. */
const MAX_TRANSITION_ENTRIES = 1 << 16;
const NOT_COMPUTED = -2;
const ILLEGAL = -1;
/** Loop iterations per slice: a search yields (its memory use) after each slice. */
const SLICE = 0x3fff;

/** The search of one part, run a slice at a time; yields its memory use in bytes between slices. */
function* searchPart<S, I, O>(
  model: Model<S, I, O>,
  ops: readonly LinOp<I, O>[],
): Generator<number, PartOutcome<S>, void> {
  const n = ops.length;
  if (n === 0) return { kind: "ok", statesExplored: 0, modelStates: 0 };

  const { HEAD, next, prev, position } = entryList(ops);
  const twin = earlierTwins(ops, position);
  /** 1 for ops with a known return (they must be linearized), 0 for ops that may never happen. */
  const definite = new Uint8Array(n);
  let remainingDefinite = 0;
  for (let i = 0; i < n; i++) {
    if (Number.isFinite((ops[i] as LinOp<I, O>).ret)) {
      definite[i] = 1;
      remainingDefinite++;
    }
  }
  const zobA = zobristKeys(n, 0x2545f491);
  const zobB = zobristKeys(n, 0x6b43a9b5);
  const stateTable = new StateTable(model, ops);

  // The linearized set and the cache of configurations.
  const linearized = new OpSet(ops, position);
  const cache = new ConfigCache();
  const counts = () => ({ statesExplored: cache.size, modelStates: stateTable.size });

  const stackOp = new Int32Array(n);
  const stackState = new Int32Array(n);
  let depth = 0;
  let sid = stateTable.initial;
  let hashA = 0;
  let hashB = 0;

  // The branch that got furthest: stuck at the latest return.
  // Its linearization is kept without copying the stack each time: `bestPartial[0, bestLive)`
  // is still on the stack, and entries are saved into it only as backtracking pops them.
  let bestPosition = -1;
  let bestStuck = -1;
  const bestPartial = new Int32Array(n);
  let bestDepth = 0;
  let bestLive = 0;
  let bestState = sid;

  let entry = next[HEAD] as number;
  let iterations = 0;
  for (;;) {
    if (remainingDefinite === 0) return { kind: "ok", ...counts() };
    if ((++iterations & SLICE) === 0) yield cache.bytes() + stateTable.bytes();
    if ((entry & 1) === 0) {
      // A call: try to linearize its op now, unless an interchangeable earlier op is still
      // unlinearized (that one is tried instead: the orders found are the same).
      const op = entry >>> 1;
      const t = twin[op] as number;
      const nextState = t >= 0 && !linearized.has(t) ? ILLEGAL : stateTable.step(sid, op);
      if (nextState !== ILLEGAL) {
        linearized.add(op);
        const a = hashA ^ (zobA[op] as number);
        const b = hashB ^ (zobB[op] as number);
        if (cache.add(a, b, nextState, linearized)) {
          hashA = a;
          hashB = b;
          stackOp[depth] = op;
          stackState[depth] = sid;
          depth++;
          sid = nextState;
          remainingDefinite -= definite[op] as number;
          // Lift the op's call and return out of the list.
          const ret = entry + 1;
          next[prev[entry] as number] = next[entry] as number;
          if (next[entry] !== -1) prev[next[entry] as number] = prev[entry] as number;
          next[prev[ret] as number] = next[ret] as number;
          if (next[ret] !== -1) prev[next[ret] as number] = prev[ret] as number;
          entry = next[HEAD] as number;
          continue;
        }
        linearized.remove(op);
      }
      entry = next[entry] as number;
      continue;
    }

    // A return: its op should already have taken effect. This branch is stuck.
    const pos = position[entry] as number;
    if (pos > bestPosition || (pos === bestPosition && depth > bestDepth)) {
      bestPosition = pos;
      bestStuck = entry >>> 1;
      bestDepth = depth;
      bestLive = depth;
      bestState = sid;
    }
    if (depth === 0) {
      return {
        kind: "illegal",
        stuck: bestStuck,
        partial: Array.from(bestPartial.subarray(0, bestDepth)),
        window: concurrentWith(ops, bestStuck),
        stateAfterPartial: stateTable.state(bestState),
        ...counts(),
      };
    }
    // Backtrack: undo the last linearization and try the next candidate after it.
    depth--;
    const op = stackOp[depth] as number;
    if (depth < bestLive) {
      bestPartial[depth] = op;
      bestLive = depth;
    }
    sid = stackState[depth] as number;
    linearized.remove(op);
    hashA ^= zobA[op] as number;
    hashB ^= zobB[op] as number;
    remainingDefinite += definite[op] as number;
    const call = 2 * op;
    const ret = call + 1;
    // Unlift in reverse order of lifting: return first, then call.
    next[prev[ret] as number] = ret;
    if (next[ret] !== -1) prev[next[ret] as number] = ret;
    next[prev[call] as number] = call;
    if (next[call] !== -1) prev[next[call] as number] = call;
    entry = next[call] as number;
  }
}

/** Ops other than `i` whose intervals overlap op i's (closed intervals), in call order. */
function concurrentWith(ops: readonly LinOp<unknown, unknown>[], i: number): number[] {
  const me = ops[i] as LinOp<unknown, unknown>;
  const found: number[] = [];
  ops.forEach((op, j) => {
    if (j !== i && op.call <= me.ret && op.ret >= me.call) found.push(j);
  });
  return found.sort(
    (a, b) => (ops[a] as LinOp<unknown, unknown>).call - (ops[b] as LinOp<unknown, unknown>).call || a - b,
  );
}

/**
 * The time-ordered doubly linked list of entries: op i's call is entry 2i, its return 2i+1;
 * HEAD (2n) is the sentinel before the first. `position` is each entry's rank in time order.
 */
function entryList(ops: readonly LinOp<unknown, unknown>[]) {
  const n = ops.length;
  const HEAD = 2 * n;
  const next = new Int32Array(2 * n + 1);
  const prev = new Int32Array(2 * n + 1);
  const position = new Int32Array(2 * n);
  const order = new Int32Array(2 * n);
  const at = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    const op = ops[i] as LinOp<unknown, unknown>;
    order[2 * i] = 2 * i;
    order[2 * i + 1] = 2 * i + 1;
    at[2 * i] = op.call;
    at[2 * i + 1] = op.ret;
  }
  // Time, then calls before returns (closed intervals), then op order: deterministic.
  order.sort((a, b) => (at[a] as number) - (at[b] as number) || (a & 1) - (b & 1) || a - b);
  let last = HEAD;
  for (let k = 0; k < 2 * n; k++) {
    const e = order[k] as number;
    position[e] = k;
    next[last] = e;
    prev[e] = last;
    last = e;
  }
  next[last] = -1;
  prev[HEAD] = -1;
  return { HEAD, next, prev, position };
}

/**
 * For each op B, an op A that can stand in for it, or -1: same input and output, called no
 * later (A's call entry comes first) and returning no later. Whenever A is still unlinearized,
 * linearizing B now is pointless: any linearization that places B here and A later (or never)
 * stays valid with the two swapped, since A's interval allows B's place and B's allows A's.
 * Only the nearest such A among the last few of the same kind is recorded; -1 is always safe.
 */
function earlierTwins(ops: readonly LinOp<unknown, unknown>[], position: Int32Array): Int32Array {
  const n = ops.length;
  const twin = new Int32Array(n).fill(-1);
  const byCall = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => (position[2 * a] as number) - (position[2 * b] as number),
  );
  const seen = new Map<string, number[]>();
  for (const b of byCall) {
    const op = ops[b] as LinOp<unknown, unknown>;
    const sig = signature(op);
    let earlier = seen.get(sig);
    if (earlier === undefined) {
      earlier = [];
      seen.set(sig, earlier);
    }
    for (let k = earlier.length - 1; k >= Math.max(0, earlier.length - 8); k--) {
      const a = earlier[k] as number;
      if ((ops[a] as LinOp<unknown, unknown>).ret <= op.ret) {
        twin[b] = a;
        break;
      }
    }
    earlier.push(b);
  }
  return twin;
}

function signature(op: LinOp<unknown, unknown>): string {
  const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x));
  return `${json(op.input)}→${op.output === undefined ? "?" : json(op.output)}`;
}

/**
 * Random-looking 32-bit words, reproducible from `seed`: a multiplicative mix of the index
 * (murmur3's finalizer). Not a linear generator such as xorshift, whose outputs satisfy linear
 * relations that would make distinct sets hash alike far more often than chance.
 */
function zobristKeys(n: number, seed: number): Int32Array {
  const keys = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let h = (Math.imul(i + 1, 0x9e3779b1) ^ seed) | 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    keys[i] = h ^ (h >>> 16);
  }
  return keys;
}

/**
 * Model states interned to small integers, and the transition (state, op) → state remembered
 * in a flat table, so the model is called once per distinct transition.
 */
class StateTable<S, I, O> {
  readonly initial: number;
  private readonly states: S[] = [];
  private readonly ids = new Map<StateKey, number>();
  private readonly smallIds = new IntPairMap(16);
  private table: Int32Array;
  /** States whose transitions fit in the table; beyond, the model is called each time. */
  private tabled = 0;
  private count = 0;
  private readonly n: number;

  constructor(
    private readonly model: Model<S, I, O>,
    private readonly ops: readonly LinOp<I, O>[],
  ) {
    this.n = ops.length;
    this.table = new Int32Array(this.n * 8).fill(NOT_COMPUTED);
    this.initial = this.intern(model.init());
  }

  /** Number of states seen (for id models: one more than the largest id seen). */
  get size(): number {
    return this.count;
  }

  state(id: number): S {
    return this.model.statesAreIds ? (id as unknown as S) : (this.states[id] as S);
  }

  bytes(): number {
    return this.table.length * 4 + this.smallIds.bytes();
  }

  /** The state after op in state `sid`, or ILLEGAL. */
  step(sid: number, op: number): number {
    if (sid < this.tabled) {
      const known = this.table[sid * this.n + op] as number;
      if (known !== NOT_COMPUTED) return known;
    }
    const o = this.ops[op] as LinOp<I, O>;
    const s = this.model.step(this.state(sid), o.input, o.output);
    const result = s === undefined ? ILLEGAL : this.intern(s);
    if (sid < this.tabled) this.table[sid * this.n + op] = result;
    return result;
  }

  private intern(s: S): number {
    if (this.model.statesAreIds) {
      const id = s as unknown as number;
      if (id >= this.count) {
        this.count = id + 1;
        this.makeRoomFor(id);
      }
      return id;
    }
    const k = this.model.key(s);
    // 32-bit integer keys (most models' states) go through a typed-array map.
    const small = typeof k === "number" && (k | 0) === k;
    let id = small ? this.smallIds.get(k, 0) : (this.ids.get(k) ?? -1);
    if (id === -1) {
      // A JavaScript Map holds at most 2^24 entries: past that, the search is out of memory.
      if (!small && this.ids.size >= MAX_MAP_ENTRIES) throw new OutOfStates();
      id = this.states.length;
      this.states.push(s);
      this.count = id + 1;
      if (small) this.smallIds.set(k, 0, id);
      else this.ids.set(k, id);
      this.makeRoomFor(id);
    }
    return id;
  }

  private makeRoomFor(id: number): void {
    const need = (id + 1) * this.n;
    if (need > this.table.length && need <= MAX_TRANSITION_ENTRIES) {
      const grown = new Int32Array(Math.min(MAX_TRANSITION_ENTRIES, Math.max(need, this.table.length * 2)));
      grown.fill(NOT_COMPUTED, this.table.length);
      grown.set(this.table);
      this.table = grown;
    }
    if (need <= this.table.length) this.tabled = id + 1;
  }
}
