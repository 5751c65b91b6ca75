/**
 * Streaming validation of a history: the checks that need earlier lines. Feed ops in file
 * order with their line numbers; problems collect in `errors` (the history cannot be checked)
 * and `warnings` (it can, but something looks off).
 *
 * Errors:
 * - index not greater than the previous one (a duplicate or a step backwards);
 * - time going backwards within one process;
 * - a client completion (ok/fail/info) with no open invoke of that process;
 * - a client invoke while that process still has an open call (one call at a time);
 * - a completion whose f, lock or grant differs from its invoke's;
 * - an acquire `ok` without a grant, or handing out a grant id already handed out.
 * Warnings: a gap in the indices; time going backwards across processes.
 *
 * The nemesis may record a fault as one event or as an invoke plus a completion; its events
 * are only checked for index and time. Memory: one entry per process and per grant.
 */
import type { InputError } from "../result.js";
import { emptyOpFacts, factsOf, NEMESIS, type OpFacts } from "./facts.js";
import type { ClientId, Op } from "./op.js";
import { ProcessMap } from "./process-map.js";

export interface HistoryValidator {
  /** Checks one op; returns false if it added an error. */
  check(op: Op, line: number): boolean;
  /** Same as `check`, for an op whose facts the reader has already read (see facts.ts). */
  checkFacts(facts: OpFacts, line: number): boolean;
  /** Call once at the end: adds a note for warnings left out of the list. */
  finish(): void;
  readonly errors: InputError[];
  readonly warnings: InputError[];
}

/** What the validator remembers of one client process. */
interface ClientState {
  /** The open call's f, lock and grant (f undefined: no open call), and its line. */
  openF: string | undefined;
  openLock: string | undefined;
  openGrant: string | undefined;
  openLine: number;
  /** Time of its last op (-1: none yet), and that op's line. */
  lastTime: number;
  lastTimeLine: number;
}

/** At most this many warnings of one kind are kept; later ones are counted in a summary warning. */
const MAX_WARNINGS_PER_KIND = 5;

/** `sink`: arrays to collect into (default: fresh ones), so a reader can merge its own problems in line order. */
export function createHistoryValidator(
  file?: string,
  sink: { errors: InputError[]; warnings: InputError[] } = { errors: [], warnings: [] },
): HistoryValidator {
  const { errors, warnings } = sink;
  // Per client process, one record updated in place. The open call's f, lock and grant are kept
  // as strings rather than the op itself: storing a freshly parsed op into a long-lived object
  // costs a write barrier on every op.
  const clients = new ProcessMap<ClientState>();
  let nemesisLine = 0;
  /** lock → grant id → line of the acquire ok that handed it out. */
  const granted = new Map<string, Map<string, number>>();
  const warningCounts = new Map<string, number>();
  let lastIndex = -1;
  let lastIndexLine = 0;
  // Fields, not `let`s: assigning a double to a closure variable allocates on every op.
  const times = { max: 0, nemesis: -1 };

  function clientState(p: ClientId): ClientState {
    let s = clients.get(p);
    if (s === undefined) {
      s = {
        openF: undefined,
        openLock: undefined,
        openGrant: undefined,
        openLine: 0,
        lastTime: -1,
        lastTimeLine: 0,
      };
      clients.set(p, s);
    }
    return s;
  }

  const at = (line: number, field: string | undefined, message: string): InputError => ({
    ...(file !== undefined && { file }),
    line,
    ...(field !== undefined && { field }),
    message,
  });
  const error = (line: number, field: string | undefined, message: string) => {
    errors.push(at(line, field, message));
    return false;
  };
  const warn = (kind: string, line: number, field: string | undefined, message: string) => {
    const n = (warningCounts.get(kind) ?? 0) + 1;
    warningCounts.set(kind, n);
    if (n <= MAX_WARNINGS_PER_KIND) warnings.push(at(line, field, message));
  };

  function checkOrder(op: OpFacts, line: number): boolean {
    if (op.index <= lastIndex) {
      const what =
        op.index === lastIndex ? `duplicate index ${op.index}` : `index ${op.index} goes backwards`;
      return error(
        line,
        "index",
        `${what} (line ${lastIndexLine} has index ${lastIndex}); indices must increase`,
      );
    }
    if (op.index !== lastIndex + 1) {
      warn("gap", line, "index", `index jumps from ${lastIndex} to ${op.index}; ops may be missing`);
    }
    lastIndex = op.index;
    lastIndexLine = line;
    const p = op.process;
    const client = p === NEMESIS ? undefined : clientState(p);
    const prevTime = client === undefined ? times.nemesis : client.lastTime;
    if (op.time < prevTime) {
      const prevLine = client === undefined ? nemesisLine : client.lastTimeLine;
      return error(
        line,
        "time",
        `time goes backwards for process ${p === NEMESIS ? "nemesis" : p}: ${op.time} ns, but line ${prevLine} has ${prevTime} ns`,
      );
    }
    if (client === undefined) {
      times.nemesis = op.time;
      nemesisLine = line;
    } else {
      client.lastTime = op.time;
      client.lastTimeLine = line;
    }
    if (op.time < times.max) {
      warn("time", line, "time", `time ${op.time} ns is earlier than an earlier line's ${times.max} ns`);
    } else times.max = op.time;
    return true;
  }

  function checkCall(op: OpFacts, line: number): boolean {
    if (op.process === NEMESIS) return true;
    const p = op.process;
    const client = clientState(p);
    const callF = client.openF;
    if (op.type === "invoke") {
      if (callF !== undefined) {
        return error(
          line,
          "type",
          `process ${p} invoked ${op.f} while its ${callF} from line ${client.openLine} has not completed (a process makes one call at a time)`,
        );
      }
      client.openF = op.f;
      client.openLock = op.lock;
      client.openGrant = op.grant;
      client.openLine = line;
      return true;
    }
    if (callF === undefined)
      return error(line, "type", `${op.type} without invoke: process ${p} has no open call`);
    client.openF = undefined;
    const callLock = client.openLock;
    const callGrant = client.openGrant;
    const callLine = client.openLine;
    if (op.f !== callF)
      return error(line, "f", `completion is ${op.f} but the invoke on line ${callLine} is ${callF}`);
    if (op.lock !== callLock) {
      return error(
        line,
        "lock",
        `completion names lock "${op.lock}" but the invoke on line ${callLine} names "${callLock}"`,
      );
    }
    if (op.f === "write" && callGrant !== undefined && op.grant !== callGrant) {
      return error(
        line,
        "grant",
        `completion names grant "${op.grant}" but the invoke on line ${callLine} names "${callGrant}"`,
      );
    }
    if (op.f === "acquire" && op.type === "ok") {
      if (op.grant === undefined)
        return error(line, "grant", "an acquire ok must carry the grant it handed out");
      let ofLock = granted.get(op.lock);
      if (ofLock === undefined) {
        ofLock = new Map();
        granted.set(op.lock, ofLock);
      }
      const earlier = ofLock.get(op.grant);
      if (earlier !== undefined) {
        return error(
          line,
          "grant",
          `grant "${op.grant}" of lock "${op.lock}" was already handed out on line ${earlier}`,
        );
      }
      ofLock.set(op.grant, line);
    }
    return true;
  }

  function checkFacts(facts: OpFacts, line: number): boolean {
    // Both always run, so that one bad line does not cascade into errors on the next ones.
    const ordered = checkOrder(facts, line);
    return checkCall(facts, line) && ordered;
  }
  const scratch = emptyOpFacts();

  return {
    errors,
    warnings,
    checkFacts,
    check: (op, line) => checkFacts(factsOf(op, scratch), line),
    finish() {
      for (const [kind, n] of warningCounts) {
        if (n > MAX_WARNINGS_PER_KIND) {
          warnings.push({
            ...(file !== undefined && { file }),
            message: `${n - MAX_WARNINGS_PER_KIND} more warnings like the ${kind === "gap" ? "index gaps" : "time reorderings"} above were not listed`,
          });
        }
      }
    },
  };
}
