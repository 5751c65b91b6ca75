/**
 * Generated histories for property tests of the linearizability checker.
 *
 * A plan lists ops per process with random gaps and durations; the simulation gives each op a
 * linearization point inside its interval, applies the ops to a correct implementation of the
 * model in that order, and records what each observed. Such a history is linearizable by
 * construction. Some ops end `info`: they took effect at their point, or never, and nobody
 * knows which. Lock ops the lock refused (acquire while held) end `fail` and are dropped, as
 * Jepsen drops failed ops.
 */
import fc from "fast-check";
import {
  type CasInput,
  type CasOutput,
  casRegisterModel,
  type RegisterValue,
} from "../../src/checkers/linearizable/models/cas-register.js";
import { fencedMutexModel } from "../../src/checkers/linearizable/models/fenced-mutex.js";
import { type KvInput, type KvOutput, kvModel } from "../../src/checkers/linearizable/models/kv.js";
import type { LockInput, LockOutput } from "../../src/checkers/linearizable/models/lock-op.js";
import type { LinOp, Model } from "../../src/checkers/linearizable/models/model.js";
import { mutexModel } from "../../src/checkers/linearizable/models/mutex.js";
import { ownerMutexModel } from "../../src/checkers/linearizable/models/owner-mutex.js";

export interface PlannedOp {
  process: number;
  /** Time from the process's previous return (or 0) to this call; with `free`, from time 0. */
  gap: number;
  /** Called at `gap`, whatever the process did before (the checker orders by time, not by process). */
  free: boolean;
  /** Call → linearization point. */
  toPoint: number;
  /** Linearization point → return. */
  toReturn: number;
  /** Picks the operation and its arguments (model-specific). */
  choice: number;
  /** Picks a second argument or a token increment. */
  choice2: number;
  /** 0: completes normally; 1: `info`, took effect; 2: `info`, never took effect. */
  fate: 0 | 1 | 2;
}

/**
 * What a kit needs to simulate and corrupt histories of one model. `S` is the state of the
 * simulation's model, which may represent state more plainly than the checker's.
 */
export interface ModelKit<S, I, O> {
  name: string;
  /** The model the checker is run with. */
  model: () => Model<unknown, I, O>;
  /** A model with the same semantics for the brute-force reference, which must not partition. */
  reference: () => Model<unknown, I, O>;
  /** The model a correct implementation follows, to simulate with; fresh per simulation. */
  simulation: () => Model<S, I, O>;
  input(p: PlannedOp): I;
  /** What a correct implementation answers in `state` (may be refused: then the op fails). */
  output(state: S, input: I, p: PlannedOp): O;
  /** A different output for a corrupted response, or undefined when there is none. */
  corrupt(input: I, output: O, choice: number): O | undefined;
}

export interface Simulated<I, O> {
  /** The ops the checker sees (failed ones dropped). */
  ops: LinOp<I, O>[];
  /** Ops that were refused (failed), for corruptions that turn a failure into success. */
  refused: LinOp<I, O>[];
}

/** Shape of generated histories: how often calls end `info`, and whether calls may start anywhere. */
export interface PlanShape {
  /** Out of 7 calls, how many end `info` (half of them took effect). Default 2. */
  info?: number;
  /** Allow calls at arbitrary times, overlapping their own process's calls. Default true. */
  free?: boolean;
  /**
   * At most this many `info` calls per history (later ones complete normally). Each may take
   * effect anywhere or never, which multiplies the search: keep it small. Default 6.
   */
  maxInfo?: number;
}

export const plannedOp = (processes: number, shape: PlanShape = {}): fc.Arbitrary<PlannedOp> => {
  const info = shape.info ?? 2;
  const fates: (0 | 1 | 2)[] = [
    ...Array<0>(7 - info).fill(0),
    ...Array.from({ length: info }, (_, i) => (i % 2 === 0 ? 1 : 2) as 1 | 2),
  ];
  return fc.record({
    process: fc.integer({ min: 0, max: processes - 1 }),
    gap: fc.integer({ min: 0, max: 6 }),
    free: shape.free === false ? fc.constant(false) : fc.boolean(),
    toPoint: fc.integer({ min: 0, max: 6 }),
    // Mostly short calls, some long ones that overlap many others.
    toReturn: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 4, max: 15 })),
    choice: fc.nat(),
    choice2: fc.nat(),
    fate: fc.constantFrom(...fates),
  });
};

export const plan = (maxOps: number, maxProcesses = 4, shape: PlanShape = {}): fc.Arbitrary<PlannedOp[]> =>
  fc
    .integer({ min: 1, max: maxProcesses })
    // size "max": lengths spread up to maxOps (fast-check keeps arrays short by default).
    .chain((processes) =>
      fc.array(plannedOp(processes, shape), { minLength: 1, maxLength: maxOps, size: "max" }),
    )
    .map((ops) => {
      let infos = 0;
      return ops.map((p) =>
        p.fate !== 0 && ++infos > (shape.maxInfo ?? 6) ? { ...p, fate: 0 as const } : p,
      );
    });

export function simulate<S, I, O>(kit: ModelKit<S, I, O>, planned: readonly PlannedOp[]): Simulated<I, O> {
  const model = kit.simulation();
  const clock = new Map<number, number>();
  const timed = planned.map((p, i) => {
    const call = p.free ? p.gap : (clock.get(p.process) ?? 0) + p.gap;
    const point = call + p.toPoint;
    const ret = point + p.toReturn;
    if (!p.free) clock.set(p.process, Math.max(ret, clock.get(p.process) ?? 0));
    return { p, i, call, point, ret };
  });
  // Apply in linearization-point order (ties: plan order).
  const byPoint = [...timed].sort((a, b) => a.point - b.point || a.i - b.i);
  let state = model.init();
  const ops: (LinOp<I, O> | undefined)[] = new Array(planned.length);
  const refused: LinOp<I, O>[] = [];
  for (const t of byPoint) {
    const input = kit.input(t.p);
    const observed = kit.output(state, input, t.p);
    const base = { process: t.p.process, call: t.call, input, refs: [t.i] };
    if (t.p.fate === 2) {
      ops[t.i] = { ...base, ret: Number.POSITIVE_INFINITY, output: undefined };
      continue;
    }
    const next = model.step(state, input, observed);
    if (next === undefined) {
      refused.push({ ...base, ret: t.ret, output: observed });
      continue;
    }
    state = next;
    ops[t.i] =
      t.p.fate === 1
        ? { ...base, ret: Number.POSITIVE_INFINITY, output: undefined }
        : { ...base, ret: t.ret, output: observed };
  }
  return { ops: ops.filter((o): o is LinOp<I, O> => o !== undefined), refused };
}

/** One model per lock name, for the brute force (which must not partition). */
function perLock<S>(m: Model<S, LockInput, LockOutput>): () => Model<unknown, LockInput, LockOutput> {
  return () => ({
    ...m,
    partition: undefined,
    init: () => new Map<string, S>(),
    step(state, input, output) {
      const locks = state as Map<string, S>;
      const s = m.step(locks.has(input.lock) ? (locks.get(input.lock) as S) : m.init(), input, output);
      if (s === undefined) return undefined;
      return new Map(locks).set(input.lock, s);
    },
    key: () => "unused",
    describeState: () => "",
  });
}

const LOCKS = ["a", "b"];

function lockKit<S>(
  m: Model<S, LockInput, LockOutput>,
  tokens: boolean,
): ModelKit<unknown, LockInput, LockOutput> {
  let lastToken = 0n;
  return {
    name: m.name,
    model: () => m as Model<unknown, LockInput, LockOutput>,
    reference: perLock(m),
    simulation: () => {
      lastToken = 0n;
      return perLock(m)();
    },
    input: (p) => ({
      f: p.choice % 2 === 0 ? "acquire" : "release",
      process: p.process,
      lock: LOCKS[(p.choice >> 1) % LOCKS.length] as string,
    }),
    output(_state, input, p) {
      if (!tokens || input.f !== "acquire") return {};
      // The token service is monotonic across locks, with gaps; tokens of refused acquires are burnt.
      lastToken += BigInt(1 + (p.choice2 % 3));
      return { token: lastToken };
    },
    corrupt(input, output, choice) {
      if (!tokens || input.f !== "acquire" || output.token === undefined) return undefined;
      const delta = BigInt(1 + (choice % 4));
      return { token: choice % 2 === 0 ? output.token - delta : output.token + delta };
    },
  };
}

export const mutexKit = lockKit(mutexModel, false);
export const ownerMutexKit = lockKit(ownerMutexModel, false);
export const fencedMutexKit = lockKit(fencedMutexModel, true);

const VALUES: RegisterValue[] = [0, 1, 2];

export const casRegisterKit: ModelKit<RegisterValue, CasInput, CasOutput> = {
  name: "cas-register",
  model: () => casRegisterModel as Model<unknown, CasInput, CasOutput>,
  reference: () => casRegisterModel as Model<unknown, CasInput, CasOutput>,
  simulation: () => casRegisterModel,
  input(p) {
    const v = VALUES[p.choice2 % VALUES.length] as RegisterValue;
    const w = VALUES[(p.choice2 >> 2) % VALUES.length] as RegisterValue;
    switch (p.choice % 3) {
      case 0:
        return { f: "read" };
      case 1:
        return { f: "write", value: v };
      default:
        return { f: "cas", from: v, to: w };
    }
  },
  output(state, input) {
    if (input.f === "read") return { f: "read", value: state };
    if (input.f === "write") return { f: "write" };
    return { f: "cas", ok: input.from === state };
  },
  corrupt(input, output, choice) {
    if (output.f === "cas") return { f: "cas", ok: !output.ok };
    if (output.f === "read") {
      const others = [null, ...VALUES].filter((v) => v !== output.value);
      return { f: "read", value: others[choice % others.length] as RegisterValue };
    }
    return input.f === "write" ? undefined : output;
  },
};

/** The kv store with plain strings per key, to simulate with (the checker's model interns values). */
const kvStrings = (): Model<ReadonlyMap<string, string>, KvInput, KvOutput> => ({
  name: "kv-strings",
  init: () => new Map(),
  step(state, input, output) {
    const current = state.get(input.key) ?? "";
    if (input.f === "get") return output?.value === undefined || output.value === current ? state : undefined;
    return new Map(state).set(input.key, input.f === "put" ? input.value : current + input.value);
  },
  key: (state) => JSON.stringify([...state].sort()),
  describeOp: () => "",
  describeState: () => "",
});

/** kv over the given keys and suffixes; a narrow alphabet makes identical concurrent ops common. */
function kvKitOver(
  name: string,
  keys: readonly string[],
  suffixes: readonly string[],
): ModelKit<ReadonlyMap<string, string>, KvInput, KvOutput> {
  return {
    name,
    model: kvModel as () => Model<unknown, KvInput, KvOutput>,
    // The plain string model: independent of the interning the checker's kv models do.
    reference: kvStrings as () => Model<unknown, KvInput, KvOutput>,
    simulation: kvStrings,
    input(p) {
      const key = keys[p.choice2 % keys.length] as string;
      const value = suffixes[(p.choice2 >> 1) % suffixes.length] as string;
      const f = (["get", "get", "put", "append", "append"] as const)[p.choice % 5] as KvInput["f"];
      return { f, key, value: f === "get" ? "" : value };
    },
    output: (state, input) => (input.f === "get" ? { value: state.get(input.key) ?? "" } : {}),
    corrupt(input, output, choice) {
      if (input.f !== "get" || output.value === undefined) return undefined;
      const options = ["", "x", "y", "xy", "yx", "xx", "xxx", `${output.value}x`].filter(
        (v) => v !== output.value,
      );
      return { value: options[choice % options.length] as string };
    },
  };
}

export const kvKit = kvKitOver("kv", ["a", "a", "b"], ["x", "y", "xy"]);
export const kvNarrowKit = kvKitOver("kv (one key, one suffix)", ["a"], ["x"]);
