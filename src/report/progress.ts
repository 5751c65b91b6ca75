/**
 * Console progress for long commands (fuzz, run, gate): one live line with a bar, runs done,
 * rate, violations found and, when the amount of work is known, an ETA.
 *
 * Progress goes to stderr by default so stdout stays clean for `--json`. It is drawn live only
 * on a TTY. When the stream is not a TTY (CI logs, pipes) it prints the same line, plainly, at
 * most once every `everyMs` (default 15 s) and only once that long has passed: a quick command
 * prints nothing, a long real-server shrink shows it is alive. With `quiet` every method is a
 * no-op, so callers never branch on it.
 *
 * Contract for callers: call `stop()` exactly once when the work ends, including on error
 * (a `finally`): the live line owns a redraw timer that keeps Node's event loop alive. `log`
 * prints a line above the live line (e.g. "violation found in run 17") without tearing it.
 */
import cliProgress from "cli-progress";
import { type Colors, colorsFor } from "./colors.js";

export interface ProgressUpdate {
  /** Units of work finished so far (runs, usually). */
  done: number;
  /** Total units, when known; changes the line from open-ended to a bar with an ETA. */
  total?: number;
  /** Violations found so far. */
  violations?: number;
  /** What `ProgressOptions.tally` counts, so far (shown instead of the violations). */
  tallied?: number;
  /**
   * Runs spent shrinking a counterexample, once the search has stopped and shrinking begun;
   * absent or null while searching. The line then shows this instead of the search's rate
   * and ETA, which no longer move.
   */
  shrinkRuns?: number | null;
}

export interface Progress {
  update(f: ProgressUpdate): void;
  /** Prints `line` above the live line (nothing off a TTY). */
  log(line: string): void;
  /** Prints `line` above the live line, and off a TTY as a plain line: news a log reader needs. */
  say(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  title: string;
  total?: number;
  quiet?: boolean;
  /** Where to draw; default process.stderr. */
  stream?: NodeJS.WriteStream;
  /** What is being counted; default "runs". */
  unit?: string;
  /**
   * What the second count counts, when it is not violations: its text for a count of n
   * (`shrink` on real servers: smaller failing schedules kept), shown plainly, not in the
   * colours of a verdict; null: no second count (`shrink` in the simulator).
   */
  tally?: ((n: number) => string) | null;
  /** Off a TTY: the least time between two printed lines (default 15 s). */
  everyMs?: number;
  /** The clock, for tests; default Date.now. */
  now?: () => number;
}

/** Everything one rendering of the live line depends on. */
export interface ProgressState {
  title: string;
  unit: string;
  done: number;
  total: number | undefined;
  violations: number;
  /** ProgressOptions.tally; absent: the count is of violations. */
  tally?: ((n: number) => string) | null;
  /** ProgressUpdate.tallied. */
  tallied: number;
  shrinkRuns: number | null;
  elapsedMs: number;
}

const SILENT: Progress = { update() {}, log() {}, say() {}, stop() {} };

const BAR_WIDTH = 24;
const MIN_BAR_WIDTH = 8;

export function startProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.quiet === true) return SILENT;
  if (stream.isTTY !== true) return periodicProgress(stream, opts);

  const colors = colorsFor(stream);
  const startedAt = Date.now();
  const state = initialState(opts);

  let stopped = false;
  // Once stopped, the line is frozen: cli-progress redraws it after re-enabling line
  // wrapping and would then cut it at the terminal width counting escape codes, mid-colour.
  let finalLine: string | undefined;
  const bars = new cliProgress.MultiBar({
    stream,
    fps: 8,
    // Leave the cursor alone and handle signals ourselves: cli-progress's own SIGINT
    // handler would swallow Ctrl-C instead of letting the command clean up and exit.
    hideCursor: false,
    gracefulExit: false,
    format: (_options, params) => {
      if (finalLine !== undefined) return finalLine;
      state.elapsedMs = Date.now() - startedAt;
      const line = formatProgressLine(state, colors, params.maxWidth);
      if (stopped) finalLine = line;
      return line;
    },
  });
  const bar = bars.create(state.total ?? 0, 0);

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.removeListener("exit", stop);
    bars.update(); // flushes lines logged since the last redraw; stop() alone drops them
    bars.stop();
  };
  // Re-enables line wrapping (cli-progress turns it off while drawing) if a command exits
  // through process.exit without stopping the bar.
  process.once("exit", stop);

  function log(line: string): void {
    if (stopped) return;
    bars.log(line.endsWith("\n") ? line : `${line}\n`);
    bars.update();
  }

  return {
    update(f) {
      if (stopped) return;
      state.done = f.done;
      if (f.total !== undefined && f.total !== state.total) {
        state.total = f.total;
        bar.setTotal(f.total);
      }
      if (f.violations !== undefined) state.violations = f.violations;
      if (f.tallied !== undefined) state.tallied = f.tallied;
      state.shrinkRuns = f.shrinkRuns ?? null;
      bar.update(f.done);
    },
    log,
    say: log,
    stop,
  };
}

/** The second count, plain and styled: violations, what a tally counts instead, or nothing. */
function secondCount(s: ProgressState, c: Colors): [string, string] | null {
  if (s.tally === null) return null;
  if (s.tally !== undefined) {
    const text = s.tally(s.tallied);
    return [text, c.cyan(text)];
  }
  const text = `${s.violations} violation${s.violations === 1 ? "" : "s"}`;
  return [text, s.violations > 0 ? c.bold(c.red(text)) : c.green(text)];
}

/**
 * The live line, e.g.
 * `fuzz sim:redlock  ██████░░░░ 42%  2100/5000 runs · 310 runs/s · 1 violation · ETA 9s`, and
 * once shrinking `… 2100/5000 runs · 1 violation · shrinking: 17 runs · 1m05s elapsed`.
 * Fits in `maxWidth` visible columns: the bar narrows, then goes.
 */
export function formatProgressLine(s: ProgressState, c: Colors, maxWidth = 120): string {
  const seconds = s.elapsedMs / 1000;
  const rate = seconds > 0 ? s.done / seconds : 0;
  const bounded = s.total !== undefined && s.total > 0;

  const shrinking = s.shrinkRuns !== null;
  const stats: Array<[string, string]> = [];
  const count = bounded ? `${s.done}/${s.total} ${s.unit}` : `${s.done} ${s.unit}`;
  stats.push([count, count]);
  // While shrinking, the search's rate and ETA no longer move: not shown.
  const rateText = `${formatRate(rate)} ${s.unit}/s`;
  if (!shrinking) stats.push([rateText, c.dim(rateText)]);
  const counted = secondCount(s, c);
  if (counted !== null) stats.push(counted);
  if (s.shrinkRuns !== null) {
    const shrinkText = `shrinking: ${s.shrinkRuns} run${s.shrinkRuns === 1 ? "" : "s"}`;
    stats.push([shrinkText, c.cyan(shrinkText)]);
  }
  if (!shrinking && bounded && s.total !== undefined) {
    const remaining = Math.max(0, s.total - s.done);
    const eta = rate > 0 ? `ETA ${formatDuration(remaining / rate)}` : "ETA --";
    stats.push([eta, eta]);
  } else {
    const elapsed = `${formatDuration(seconds)} elapsed`;
    stats.push([elapsed, c.dim(elapsed)]);
  }

  const render = (barWidth: number): { plain: string; styled: string } => {
    const sep = " · ";
    let plain = `${s.title}  `;
    let styled = `${c.bold(s.title)}  `;
    if (bounded && s.total !== undefined && barWidth > 0) {
      const fraction = Math.min(1, Math.max(0, s.done / s.total));
      const full = Math.round(fraction * barWidth);
      const pct = `${String(Math.floor(fraction * 100)).padStart(3)}%`;
      plain += `${"█".repeat(full)}${"░".repeat(barWidth - full)} ${pct}  `;
      styled += `${c.cyan("█".repeat(full))}${c.dim("░".repeat(barWidth - full))} ${pct}  `;
    }
    plain += stats.map((p) => p[0]).join(sep);
    styled += stats.map((p) => p[1]).join(c.dim(sep));
    return { plain, styled };
  };

  let last = render(0);
  for (const barWidth of [BAR_WIDTH, MIN_BAR_WIDTH, 0]) {
    last = render(barWidth);
    if (last.plain.length <= maxWidth) return last.styled;
  }
  return last.plain.slice(0, maxWidth);
}

function formatRate(perSecond: number): string {
  if (perSecond >= 100) return perSecond.toFixed(0);
  if (perSecond >= 10) return perSecond.toFixed(1);
  return perSecond.toFixed(2);
}

/** 9s, 1m05s, 2h03m. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** Off a TTY: the live line's text, printed as a plain line now and then (see the top). */
function periodicProgress(stream: NodeJS.WritableStream, opts: ProgressOptions): Progress {
  const now = opts.now ?? Date.now;
  const everyMs = opts.everyMs ?? 15_000;
  const startedAt = now();
  let lastPrinted = startedAt;
  const state = initialState(opts);
  const plain = colorsFor({ isTTY: false }, {});
  return {
    update(f) {
      state.done = f.done;
      if (f.total !== undefined) state.total = f.total;
      if (f.violations !== undefined) state.violations = f.violations;
      if (f.tallied !== undefined) state.tallied = f.tallied;
      state.shrinkRuns = f.shrinkRuns ?? null;
      const t = now();
      if (t - lastPrinted < everyMs) return;
      lastPrinted = t;
      state.elapsedMs = t - startedAt;
      stream.write(`${formatProgressLine(state, plain)}\n`);
    },
    log() {},
    say(line) {
      stream.write(`${line}\n`);
    },
    stop() {},
  };
}

function initialState(opts: ProgressOptions): ProgressState {
  const { title, total } = opts;
  return {
    title,
    unit: opts.unit ?? "runs",
    done: 0,
    total,
    violations: 0,
    ...(opts.tally === undefined ? {} : { tally: opts.tally }),
    tallied: 0,
    shrinkRuns: null,
    elapsedMs: 0,
  };
}
