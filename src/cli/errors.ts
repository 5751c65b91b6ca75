/** How the subcommands print bad input and warnings on stderr, and the exit status of a verdict. */
import type { Validity } from "../checkers/verdict.js";
import { colorsFor } from "../report/colors.js";
import { formatInputError, formatLocatedInputError, type InputError } from "../result.js";

/** "fields": `file: line N: field: message`; "located": `file:line: field: message`. */
type InputErrorStyle = "fields" | "located";

function format(e: InputError, style: InputErrorStyle): string {
  return style === "located" ? formatLocatedInputError(e) : formatInputError(e);
}

/** Prints `error: <text>` on stderr for each error (InputErrors formatted) and returns exit status 2. */
export function printInputError(
  errors: InputError | string | readonly (InputError | string)[],
  style: InputErrorStyle = "fields",
): 2 {
  const red = colorsFor(process.stderr).red("error");
  for (const e of Array.isArray(errors) ? errors : [errors])
    process.stderr.write(`${red}: ${typeof e === "string" ? e : format(e, style)}\n`);
  return 2;
}

/** Prints `warning: <the warning>` on stderr. */
export function printInputWarning(w: InputError, style: InputErrorStyle = "fields"): void {
  process.stderr.write(`${colorsFor(process.stderr).yellow("warning")}: ${format(w, style)}\n`);
}

/** Exit status of a combined verdict: 0 valid, 1 a violation, 2 unknown. */
export function exitCodeOf(valid: Validity): 0 | 1 | 2 {
  return valid === true ? 0 : valid === false ? 1 : 2;
}
