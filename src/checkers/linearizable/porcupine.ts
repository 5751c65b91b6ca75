/**
 * The two history formats of Porcupine's test corpus (anishathalye/porcupine, test_data/):
 *
 * 1. Jepsen etcd logs, one event per line, as Jepsen's console log printed them:
 *    `INFO  jepsen.util - 3	:invoke	:cas	[1 4]`. A CAS register, read the way Porcupine's
 *    own tests read it: a `:fail :cas` is a cas that answered "no" (the register did not hold
 *    `from`), a `:fail :read :timed-out` is a read with an unknown result, and an `:info`
 *    leaves the call open: it may take effect at any later point, or never.
 * 2. Key-value logs: Jepsen EDN op maps, one per line
 *    (`{:process 9, :type :invoke, :f :append, :key "0", :value "x 9 0 y"}`). They are ordinary
 *    Jepsen histories, read by src/formats/jepsen-edn.ts and the `kv` model's decoder.
 *
 * Op positions (`LinOp.refs`, `call`, `ret`) are 0-based line numbers of the log.
 */

import { err, type InputError, ok, type Result } from "../../result.js";
import type { CasInput, CasOutput, RegisterValue } from "./models/cas-register.js";
import type { LinOp } from "./models/model.js";

type CasOp = LinOp<CasInput, CasOutput>;

const LINE = /^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*?)\s*$/;

/** True when the text looks like a Jepsen console log (Porcupine's etcd corpus). */
export function looksLikeJepsenLog(text: string): boolean {
  return /^INFO\s+jepsen\.util\s+-\s+\d+\s+:/m.test(text.slice(0, 4096));
}

/** Reads a Jepsen etcd log as CAS-register ops. Lines that are not `jepsen.util` op lines are skipped. */
export function parseJepsenEtcdLog(text: string): Result<CasOp[], InputError> {
  const lines = text.split("\n");
  const open = new Map<number, CasOp>();
  const ops: CasOp[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!/^INFO\s+jepsen\.util\s+-/.test(line)) continue;
    const m = LINE.exec(line);
    if (m === null) return err({ line: i + 1, message: `unrecognised Jepsen log line: ${line.trim()}` });
    const [, proc, type, f, arg] = m as unknown as [
      string,
      string,
      "invoke" | "ok" | "fail" | "info",
      "read" | "write" | "cas",
      string,
    ];
    const process = Number(proc);
    if (type === "invoke") {
      if (open.has(process))
        return err({ line: i + 1, message: `process ${process} invoked while a call was open` });
      const input = parseInput(f, arg);
      if (!input.ok) return err({ line: i + 1, message: input.error });
      const op: CasOp = {
        process,
        call: i,
        ret: Number.POSITIVE_INFINITY,
        input: input.value,
        output: undefined,
        refs: [i],
      };
      open.set(process, op);
      ops.push(op);
      continue;
    }
    const op = open.get(process);
    if (op === undefined)
      return err({ line: i + 1, message: `${type} of process ${process} without an open invoke` });
    if (op.input.f !== f) return err({ line: i + 1, message: `:${type} :${f} completes an :${op.input.f}` });
    // :info: the call stays open to the end of the history, its outcome unknown.
    if (type === "info") continue;
    open.delete(process);
    const output = parseOutput(type, f, arg);
    if (!output.ok) return err({ line: i + 1, message: output.error });
    op.ret = i;
    op.output = output.value;
    op.refs = [op.call, i];
  }
  return ok(ops);
}

function parseValue(s: string): Result<RegisterValue, string> {
  if (s === "nil") return ok(null);
  if (/^-?\d+$/.test(s)) return ok(Number(s));
  return err(`expected an integer or nil, got ${s}`);
}

function parseInput(f: "read" | "write" | "cas", arg: string): Result<CasInput, string> {
  if (f === "read") return ok({ f: "read" });
  if (f === "write") {
    const v = parseValue(arg);
    return v.ok ? ok({ f: "write", value: v.value }) : v;
  }
  const m = /^\[\s*(\S+)\s+(\S+)\s*\]$/.exec(arg);
  if (m === null) return err(`expected :cas [from to], got ${arg}`);
  const from = parseValue(m[1] as string);
  if (!from.ok) return from;
  const to = parseValue(m[2] as string);
  if (!to.ok) return to;
  return ok({ f: "cas", from: from.value, to: to.value });
}

/** `undefined` output = unknown (a timed-out read). */
function parseOutput(
  type: "ok" | "fail",
  f: "read" | "write" | "cas",
  arg: string,
): Result<CasOutput | undefined, string> {
  if (f === "cas") return ok({ f: "cas", ok: type === "ok" });
  if (type === "fail") {
    if (f === "read" && arg === ":timed-out") return ok(undefined);
    return err(`a failed :${f} is not part of this format (only :fail :read :timed-out and :fail :cas are)`);
  }
  if (f === "write") return ok({ f: "write" });
  const v = parseValue(arg);
  return v.ok ? ok({ f: "read", value: v.value }) : v;
}
