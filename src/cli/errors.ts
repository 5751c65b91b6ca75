/** How the subcommands print bad input and warnings on stderr. */
import { colorsFor } from "../report/colors.js";
import { formatInputError, type InputError } from "../result.js";

/** Prints `error: <the error>` on stderr and returns exit status 2. */
export function printInputError(e: InputError): 2 {
  process.stderr.write(`${colorsFor(process.stderr).red("error")}: ${formatInputError(e)}\n`);
  return 2;
}
