/**
 * Terminal colours for lockcheck's console output. Colours are used only when the stream is
 * a TTY and the user has not opted out (NO_COLOR, https://no-color.org; TERM=dumb);
 * FORCE_COLOR turns them on anyway (CI logs that render ANSI). Anything written to a file or
 * a pipe stays plain, so `--json` output and redirected logs never contain escape codes.
 */
import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

type Env = Readonly<Record<string, string | undefined>>;

/** Whether output written to `stream` should carry ANSI colours. */
export function colorEnabled(stream: { isTTY?: boolean } = process.stdout, env: Env = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** Colour functions for `stream`: identity functions when colours are off. */
export function colorsFor(stream: { isTTY?: boolean } = process.stdout, env: Env = process.env): Colors {
  return pc.createColors(colorEnabled(stream, env));
}
