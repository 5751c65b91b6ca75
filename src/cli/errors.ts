/** How the subcommands print bad input and warnings on stderr, and the exit status of a verdict. */
import type { Validity } from "../api/types.js";
import { colorsFor } from "../report/colors.js";
import { formatInputError, type InputError } from "../result.js";

/**
 * Prints `error: <text>` on stderr for each error (InputErrors as `file:line: field: message`,
 * formatInputError) and returns exit status 2.
 */
export function printInputError(errors: InputError | string | readonly (InputError | string)[]): 2 {
  const red = colorsFor(process.stderr).red("error");
  for (const e of Array.isArray(errors) ? errors : [errors])
    process.stderr.write(`${red}: ${typeof e === "string" ? e : formatInputError(e)}\n`);
  return 2;
}

/** Prints `warning: <the warning>` on stderr. */
export function printInputWarning(w: InputError): void {
  process.stderr.write(`${colorsFor(process.stderr).yellow("warning")}: ${formatInputError(w)}\n`);
}

/** Exit status of a combined verdict: 0 valid, 1 a violation, 2 unknown. */
export function exitCodeOf(valid: Validity): 0 | 1 | 2 {
  return valid === true ? 0 : valid === false ? 1 : 2;
}
