/**
 * Assembling the history of a real run from what its processes wrote down.
 *
 * Each client child appends its own events (stamped in the child, see client/protocol.ts)
 * to `events/client-N.jsonl`; the parent appends fault events to `events/nemesis.jsonl`.
 * Every append is one synchronous write, so after a crash of anything the files hold every
 * event up to at most one partial last line, which is skipped. Merging orders all events by
 * their monotonic timestamps (ties keep each file's own order, clients before the nemesis)
 * and numbers them; a call left open (its client crashed, or the run ended or was
 * interrupted first) completes as `info`, as Jepsen does.
 *
 * Everything here is synchronous so it can run inside a SIGINT handler.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NemesisF, Op } from "../history/op.js";
import { serializeOp } from "../history/serialize.js";
import { type EventLine, tokenFromWire, type WireFields } from "./client/protocol.js";

export interface NemesisEvent {
  time: number;
  f: NemesisF;
  node?: string;
  value?: unknown;
}

export function clientEventsFile(eventsDir: string, clientId: number): string {
  return join(eventsDir, `client-${clientId}.jsonl`);
}

export function nemesisEventsFile(eventsDir: string): string {
  return join(eventsDir, "nemesis.jsonl");
}

/** Appends one fault event to the nemesis file (one write: crash-safe like the clients'). */
export function appendNemesisEvent(eventsDir: string, ev: NemesisEvent): void {
  appendFileSync(nemesisEventsFile(eventsDir), `${JSON.stringify(ev)}\n`);
}

/** Parses a JSONL file of records, skipping a partial last line (a crash mid-write). */
function readLines<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const out: T[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // Only the last line can be partial; anything unparsable is not ours to keep.
    }
  }
  return out;
}

interface Stamped {
  time: number;
  /** Tie-breaker: source (client id, nemesis last), then position in its file. */
  source: number;
  seq: number;
  make: (index: number) => Op;
}

export interface MergeInput {
  eventsDir: string;
  clientIds: readonly number[];
  /** Clients killed by a crash fault: their open calls complete with error "crashed". */
  crashed: ReadonlySet<number>;
  /** ns since t0 at which the run ended; open calls complete at this time. */
  endTime: number;
}

export function mergeHistory(input: MergeInput): Op[] {
  const stamped: Stamped[] = [];
  for (const id of input.clientIds) {
    const lines = readLines<EventLine>(clientEventsFile(input.eventsDir, id));
    const open = new Map<number, WireFields>();
    let lastTime = 0;
    let seq = 0;
    for (const ev of lines) {
      lastTime = Math.max(lastTime, ev.time);
      if (ev.type === "invoke") {
        open.set(ev.call, ev.fields);
        const fields = tokenFromWire(ev.fields);
        stamped.push({
          time: ev.time,
          source: id,
          seq: seq++,
          make: (index) => ({ ...fields, index, time: ev.time, process: id, type: "invoke" }) as Op,
        });
        continue;
      }
      const invoked = open.get(ev.call);
      if (invoked === undefined) continue;
      open.delete(ev.call);
      const fields = tokenFromWire({ ...invoked, ...ev.fields });
      stamped.push({
        time: ev.time,
        source: id,
        seq: seq++,
        make: (index) => ({ ...fields, index, time: ev.time, process: id, type: ev.type }) as Op,
      });
    }
    const error = input.crashed.has(id) ? "crashed" : "run-ended";
    const closeAt = Math.max(lastTime, input.endTime);
    for (const invoked of open.values()) {
      const fields = tokenFromWire({ ...invoked, error });
      stamped.push({
        time: closeAt,
        source: id,
        seq: seq++,
        make: (index) => ({ ...fields, index, time: closeAt, process: id, type: "info" }) as Op,
      });
    }
  }
  const nemesis = readLines<NemesisEvent>(nemesisEventsFile(input.eventsDir));
  nemesis.forEach((ev, seq) => {
    stamped.push({
      time: ev.time,
      source: Number.MAX_SAFE_INTEGER,
      seq,
      make: (index) => {
        const op: Op = { index, time: ev.time, process: "nemesis", type: "info", f: ev.f, value: ev.value };
        if (ev.node !== undefined) op.node = ev.node;
        return op;
      },
    });
  });
  stamped.sort((a, b) => a.time - b.time || a.source - b.source || a.seq - b.seq);
  return stamped.map((s, index) => s.make(index));
}

/**
 * Writes a whole history synchronously (usable in SIGINT handlers; real runs are small),
 * to a temp name then renamed over `path`: a reader never sees a half-written file, even if
 * this process is killed mid-write.
 */
export function writeHistoryAtomically(path: string, ops: readonly Op[]): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, ops.map((op) => `${serializeOp(op)}\n`).join(""));
  renameSync(tmp, path);
}
