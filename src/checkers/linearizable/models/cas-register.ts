/**
 * A compare-and-set register, initially `null` (nil), as Knossos's `cas-register` and
 * Porcupine's etcd model define it:
 * - `read` returns the current value;
 * - `write v` sets it;
 * - `cas [from to]` sets it to `to` if it equals `from` and reports ok, else leaves it and
 *   reports failure.
 *
 * Knossos drops failed calls before checking (a `:fail` cas "did not happen"), so only
 * successful cas calls reach the model from Jepsen EDN; Porcupine's etcd histories keep a
 * failed cas as an observation that the register did not hold `from`. Both are expressible:
 * an output `{ f: "cas", ok: false }` requires the register to differ from `from`.
 */
import type { Model } from "./model.js";

/** Register values are compared with `===`: integers beyond 2^53 are BigInts. */
export type RegisterValue = number | bigint | string | boolean | null;

export type CasInput =
  | { f: "read" }
  | { f: "write"; value: RegisterValue }
  | { f: "cas"; from: RegisterValue; to: RegisterValue };

/** Observed outcomes; `undefined` (unknown) allows any outcome. */
export type CasOutput = { f: "read"; value: RegisterValue } | { f: "write" } | { f: "cas"; ok: boolean };

export const casRegisterModel: Model<RegisterValue, CasInput, CasOutput> = {
  name: "cas-register",
  init: () => null,
  step(value, input, output) {
    switch (input.f) {
      case "read":
        return output === undefined || (output.f === "read" && output.value === value) ? value : undefined;
      case "write":
        return input.value;
      case "cas": {
        const matches = input.from === value;
        if (output === undefined) return matches ? input.to : value;
        if (output.f !== "cas") return undefined;
        if (output.ok) return matches ? input.to : undefined;
        return matches ? undefined : value;
      }
    }
  },
  key: (value) => (typeof value === "string" ? `s:${value}` : value),
  describeOp(input, output) {
    const result =
      output === undefined
        ? "unknown"
        : output.f === "read"
          ? show(output.value)
          : output.f === "cas"
            ? output.ok
              ? "ok"
              : "fail"
            : "ok";
    switch (input.f) {
      case "read":
        return `read → ${result}`;
      case "write":
        return `write ${show(input.value)} → ${result}`;
      case "cas":
        return `cas ${show(input.from)}→${show(input.to)} → ${result}`;
    }
  },
  describeState: (value) => `the register holding ${show(value)}`,
};

function show(v: RegisterValue): string {
  if (v === null) return "nil";
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}
