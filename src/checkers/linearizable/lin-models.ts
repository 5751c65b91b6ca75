/**
 * The models `--model` names, and how each reads calls (checkers/linearizable/lin-calls.ts) as its inputs
 * and outputs. Each entry decodes calls, runs checkers/linearizable/linearizable.ts and builds the verdict.
 */
import type { EdnValue } from "../../formats/edn.js";
import type { Op } from "../../history/op.js";
import { err, type InputError, ok, type Result } from "../../result.js";
import type { Verdict } from "../verdict.js";
import { type CallRecord, callsFromHistory } from "./lin-calls.js";
import { checkLinearizable, type LinearizableOptions, linearizableVerdict } from "./linearizable.js";
import type { LinModelName } from "./model-names.js";
import {
  type CasInput,
  type CasOutput,
  casRegisterModel,
  type RegisterValue,
} from "./models/cas-register.js";
import { fencedMutexModel } from "./models/fenced-mutex.js";
import { type KvInput, type KvOutput, kvModel } from "./models/kv.js";
import type { LockInput, LockOutput } from "./models/lock-op.js";
import type { LinOp, Model } from "./models/model.js";
import { mutexModel } from "./models/mutex.js";
import { ownerMutexModel } from "./models/owner-mutex.js";

export { isLinModelName, LIN_MODEL_NAMES, type LinModelName } from "./model-names.js";

/** What a decoder makes of one call: an op for the model, nothing (not the model's concern), or an error. */
type Decoded<I, O> = Result<{ input: I; output: O | undefined } | undefined, string>;

/**
 * Checks `calls` against the named model. Fails with an InputError naming the call's history
 * index when a call is not one the model understands.
 */
export function checkCallsLinearizable(
  name: LinModelName,
  calls: readonly CallRecord[],
  options: LinearizableOptions = {},
): Result<Verdict, InputError> {
  switch (name) {
    case "mutex":
      return run(mutexModel, decodeLockCall, calls, options);
    case "owner-mutex":
      return run(ownerMutexModel, decodeLockCall, calls, options);
    case "fenced-mutex":
      return run(fencedMutexModel, decodeLockCall, calls, options);
    case "cas-register":
      return run(casRegisterModel, decodeCasCall, calls, options);
    case "kv":
      return run(kvModel(), decodeKvCall, calls, options);
  }
}

/** Checks a lockcheck history (in memory) against a lock model, e.g. from a fuzz run or a gate. */
export function checkHistoryLinearizable(
  ops: readonly Op[],
  name: LinModelName,
  options: LinearizableOptions = {},
): Result<Verdict, InputError> {
  const calls = callsFromHistory(ops);
  if (!calls.ok) return calls;
  return checkCallsLinearizable(name, calls.value, options);
}

/** Turns calls into the checker's ops with `decode`, dropping calls it ignores. */
export function linOpsFromCalls<I, O>(
  calls: readonly CallRecord[],
  decode: (c: CallRecord) => Decoded<I, O>,
): Result<LinOp<I, O>[], InputError> {
  const ops: LinOp<I, O>[] = [];
  for (const c of calls) {
    const d = decode(c);
    if (!d.ok) return err({ field: `index ${c.invokeIndex}`, message: d.error });
    if (d.value === undefined) continue;
    const refs = c.completeIndex === undefined ? [c.invokeIndex] : [c.invokeIndex, c.completeIndex];
    const op: LinOp<I, O> = {
      process: c.process,
      call: c.invokeIndex,
      ret: c.pending ? Number.POSITIVE_INFINITY : (c.completeIndex as number),
      input: d.value.input,
      output: d.value.output,
      refs,
    };
    if (c.time !== undefined) op.time = c.time;
    ops.push(op);
  }
  return ok(ops);
}

function run<S, I, O>(
  model: Model<S, I, O>,
  decode: (c: CallRecord) => Decoded<I, O>,
  calls: readonly CallRecord[],
  options: LinearizableOptions,
): Result<Verdict, InputError> {
  const ops = linOpsFromCalls(calls, decode);
  if (!ops.ok) return ops;
  return ok(linearizableVerdict(model, checkLinearizable(model, ops.value, options)));
}

/**
 * Lock calls: `acquire` and `release`. Resource `write`s are not operations on the lock and
 * are ignored. Histories without lock names (Knossos's) are one lock named "". An acquire's
 * token is its `token` field, else its `:value` when that is an integer.
 */
export function decodeLockCall(c: CallRecord): Decoded<LockInput, LockOutput> {
  if (c.f === "write") return ok(undefined);
  if (c.f !== "acquire" && c.f !== "release") {
    return err(`lock models understand :acquire and :release, not :${c.f}`);
  }
  const input: LockInput = { f: c.f, process: c.process, lock: c.lock ?? "" };
  if (c.pending) return ok({ input, output: undefined });
  // Jepsen lock tests that hand out tokens put them in the acquire's :value.
  const token =
    c.token ??
    (c.f === "acquire" && (typeof c.value === "bigint" || Number.isSafeInteger(c.value))
      ? BigInt(c.value as number | bigint)
      : undefined);
  return ok({ input, output: token === undefined ? {} : { token } });
}

/**
 * CAS-register calls as Knossos reads them: `:read` (a nil value means "we don't know what
 * the read was", knossos.model/CASRegister), `:write v`, `:cas [from to]`. Failed calls never
 * get here (they did not happen), so a cas that gets here succeeded.
 */
export function decodeCasCall(c: CallRecord): Decoded<CasInput, CasOutput> {
  switch (c.f) {
    case "read": {
      if (c.pending || c.value === null || c.value === undefined)
        return ok({ input: { f: "read" }, output: undefined });
      const v = registerValue(c.value);
      if (!v.ok) return v;
      return ok({ input: { f: "read" }, output: { f: "read", value: v.value } });
    }
    case "write": {
      const v = registerValue(c.value);
      if (!v.ok) return v;
      return ok({ input: { f: "write", value: v.value }, output: c.pending ? undefined : { f: "write" } });
    }
    case "cas": {
      if (!Array.isArray(c.value) || c.value.length !== 2) return err(":cas needs a value [from to]");
      const from = registerValue(c.value[0]);
      if (!from.ok) return from;
      const to = registerValue(c.value[1]);
      if (!to.ok) return to;
      return ok({
        input: { f: "cas", from: from.value, to: to.value },
        output: c.pending ? undefined : { f: "cas", ok: true },
      });
    }
    default:
      return err(`cas-register understands :read, :write and :cas, not :${c.f}`);
  }
}

/** Key-value calls as Porcupine's kv logs write them: `:get`, `:put`, `:append` with `:key` and string `:value`. */
export function decodeKvCall(c: CallRecord): Decoded<KvInput, KvOutput> {
  if (c.f !== "get" && c.f !== "put" && c.f !== "append") {
    return err(`kv understands :get, :put and :append, not :${c.f}`);
  }
  const key = typeof c.key === "string" ? c.key : typeof c.key === "number" ? String(c.key) : undefined;
  if (key === undefined) return err(`:${c.f} needs a string or integer :key`);
  if (c.f === "get") {
    const output = c.pending || typeof c.value !== "string" ? undefined : { value: c.value };
    return ok({ input: { f: "get", key, value: "" }, output });
  }
  if (typeof c.value !== "string") return err(`:${c.f} needs a string :value`);
  return ok({ input: { f: c.f, key, value: c.value }, output: c.pending ? undefined : {} });
}

function registerValue(v: unknown): Result<RegisterValue, string> {
  if (v === null || v === undefined) return ok(null);
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "string" || typeof v === "boolean") {
    return ok(v);
  }
  const e = v as EdnValue;
  if (typeof e === "object" && e !== null && !Array.isArray(e) && "kw" in e) return ok(`:${e.kw}`);
  return err(`register values must be scalars (numbers, strings, keywords, nil), got ${JSON.stringify(v)}`);
}
