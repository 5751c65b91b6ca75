/**
 * The timeline model an HTML report draws: lanes, lock holds, writes, faults and anomaly
 * links, derived from a history (and its verdicts and schedule) in one pass. Pure data in
 * milliseconds of run time (the ops' `time`, ns → ms), so the browser side only draws.
 *
 * Pairing rules, the same as the checkers': a call is an invoke plus its process's next
 * completion. A hold runs from the acquire's `ok` until the client invokes its release (it
 * stops believing it holds the lock), or to the end of the history. Nemesis faults pair a
 * start op with its end op on the same node (pause/resume, crash/restart, delay/delay-end);
 * a heal ends every open partition; clock jumps are instants; a clock drift lasts to the end.
 */
import type { Anomaly, Verdict } from "../checkers/verdict.js";
import { type ClientId, type ClientOp, isNemesisOp, type NemesisOp, type Op } from "../history/op.js";
import { FAULT_DESCRIPTORS } from "../schedule/faults/index.js";
import type { Schedule } from "../schedule/schedule.js";

export type LaneKind = "client" | "server" | "resource" | "other";

export interface Lane {
  /** Node name as faults use it: "client:0", "server:2", "resource". */
  id: string;
  label: string;
  kind: LaneKind;
}

/** Indices into the history: the ops a drawn item stands for, for hover and highlighting. */
type OpRefs = number[];

export interface Hold {
  lane: string;
  lock: string;
  grant: string;
  /** Decimal string: tokens may exceed 2^53. */
  token: string | null;
  start: number;
  end: number;
  /** How the release ended; "none" if the history ends while the client still holds it. */
  release: "ok" | "fail" | "info" | "pending" | "none";
  /**
   * When the lease had certainly expired, in true time, if the schedule gives a ttl: the
   * acquire's `ok` + ttl (the lease was set before the client heard so). Server clock faults
   * can end it earlier. Null for locks that renew their lease (see `renewsLease`).
   */
  ttlEnd: number | null;
  ops: OpRefs;
}

/** An acquire that did not grant the lock: denied (fail) or outcome unknown (info). */
export interface Attempt {
  lane: string;
  start: number;
  end: number;
  outcome: "fail" | "info" | "pending";
  ops: OpRefs;
}

export type WriteStatus = "accepted" | "rejected" | "uncertain" | "failed";

export interface WriteMark {
  lane: string;
  grant: string;
  token: string | null;
  /** When the write was invoked. */
  start: number;
  /** When its outcome was reported (the invoke time if it never was). */
  time: number;
  status: WriteStatus;
  ops: OpRefs;
}

export type FaultKind = "pause" | "crash" | "partition" | "delay" | "clock-jump" | "clock-drift";

export interface Fault {
  kind: FaultKind;
  lanes: string[];
  start: number;
  /** Equal to start for instants (clock jumps). */
  end: number;
  /** True when the history ends before the fault does. */
  open: boolean;
  label: string;
  ops: OpRefs;
}

export interface AnomalyLink {
  /** 1-based, in report order. */
  n: number;
  checker: string;
  kind: string;
  explanation: string;
  /** A one-line summary drawn on the timeline, e.g. "stale-write: client 1's write (token 3) accepted after client 2's (token 4)". */
  headline: string;
  /** Where the link starts and ends: the first two ops of the anomaly (the stale write, then the newer one). */
  from: { lane: string; time: number } | null;
  to: { lane: string; time: number } | null;
  time: number | null;
  ops: OpRefs;
}

export interface TimelineStats {
  ops: number;
  clients: number;
  grants: number;
  acquireAttempts: number;
  writes: Record<WriteStatus, number>;
  faults: number;
  durationMs: number;
}

export interface Timeline {
  lanes: Lane[];
  holds: Hold[];
  attempts: Attempt[];
  writes: WriteMark[];
  faults: Fault[];
  anomalies: AnomalyLink[];
  startMs: number;
  endMs: number;
  stats: TimelineStats;
}

export interface TimelineInput {
  ops: readonly Op[];
  verdicts: readonly Verdict[];
  schedule?: Schedule | undefined;
  /**
   * The lock renews its lease while held (a library adapter that says `renews: true`): no
   * hold is marked as outliving its ttl. Locks named by `renewsLease` need not say it.
   */
  renews?: boolean | undefined;
}

const nsToMs = (ns: number): number => ns / 1e6;

/** Numbered clients in numeric order, then named ones in text order. */
function byClientId(a: ClientId, b: ClientId): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function clientLane(process: ClientId): string {
  return `client:${process}`;
}

/**
 * Whether a target's lock keeps its lease alive while held (etcd leases with keep-alives, zk
 * sessions with heartbeats): then a hold longer than the ttl is normal, and is not marked.
 */
export function renewsLease(target: string): boolean {
  return /^etcd:|:(consensus|zk)$/.test(target);
}

export function buildTimeline(input: TimelineInput): Timeline {
  const { ops, verdicts, schedule } = input;
  const renews = input.renews === true || (schedule !== undefined && renewsLease(schedule.target));
  const ttlMs = schedule && !renews ? schedule.options.ttlMs : null;
  const endMs = Math.max(0, ...ops.map((o) => nsToMs(o.time)));

  const holds: Hold[] = [];
  const attempts: Attempt[] = [];
  const writes: WriteMark[] = [];
  /** Where each op index is drawn: its lane and time, for anomaly links. */
  const placeOf = new Map<number, { lane: string; time: number }>();

  const openCall = new Map<ClientId, ClientOp>();
  const heldBy = new Map<string, Hold>(); // key: process + lock + grant
  const holdKey = (p: ClientId, lock: string, grant: string | undefined) =>
    `${p}\u0000${lock}\u0000${grant ?? ""}`;

  const clients = new Set<ClientId>(schedule?.clients.map((c) => c.id) ?? []);
  const nemesisOps: NemesisOp[] = [];

  for (const op of ops) {
    if (isNemesisOp(op)) {
      nemesisOps.push(op);
      continue;
    }
    clients.add(op.process);
    const lane = clientLane(op.process);
    const t = nsToMs(op.time);
    if (op.type === "invoke") {
      const prev = openCall.get(op.process);
      if (prev) finishCall(prev, undefined);
      openCall.set(op.process, op);
      if (op.f === "release") {
        const h = heldBy.get(holdKey(op.process, op.lock, op.grant));
        if (h) {
          h.end = Math.max(h.start, t);
          h.release = "pending";
          h.ops.push(op.index);
        }
      }
      placeOf.set(op.index, { lane, time: t });
      continue;
    }
    const inv = openCall.get(op.process);
    if (!inv || inv.f !== op.f) continue; // a completion with no open call: nothing to draw
    openCall.delete(op.process);
    finishCall(inv, op);
  }
  for (const inv of openCall.values()) finishCall(inv, undefined);

  function finishCall(inv: ClientOp, done: ClientOp | undefined): void {
    openCall.delete(inv.process);
    const lane = clientLane(inv.process);
    const start = nsToMs(inv.time);
    const time = done ? nsToMs(done.time) : start;
    const refs = done ? [inv.index, done.index] : [inv.index];
    placeOf.set(inv.index, { lane, time });
    if (done) placeOf.set(done.index, { lane, time });

    if (inv.f === "acquire") {
      if (done?.type === "ok" && done.f === "acquire") {
        const grant = done.grant ?? inv.grant ?? `${inv.process}@${inv.index}`;
        const hold: Hold = {
          lane,
          lock: inv.lock,
          grant,
          token: done.token !== undefined ? String(done.token) : null,
          start: time,
          end: endMs,
          release: "none",
          ttlEnd: ttlMs === null ? null : time + ttlMs,
          ops: refs,
        };
        holds.push(hold);
        heldBy.set(holdKey(inv.process, inv.lock, grant), hold);
      } else {
        const outcome = done === undefined ? "pending" : done.type === "fail" ? "fail" : "info";
        attempts.push({ lane, start, end: time, outcome, ops: refs });
      }
      return;
    }
    if (inv.f === "release") {
      const h = heldBy.get(holdKey(inv.process, inv.lock, inv.grant));
      if (h) {
        heldBy.delete(holdKey(inv.process, inv.lock, inv.grant));
        h.release =
          done === undefined ? "pending" : done.type === "ok" ? "ok" : done.type === "fail" ? "fail" : "info";
        if (done) h.ops.push(done.index);
      }
      return;
    }
    if (inv.f === "write") {
      let status: WriteStatus = "uncertain";
      if (done?.type === "ok" && done.f === "write")
        status = done.accepted === false ? "rejected" : "accepted";
      else if (done?.type === "fail") status = "failed";
      // An info write with seq: the resource's log shows it applied (its client never learned).
      else if (done?.f === "write" && done.seq !== undefined) status = "accepted";
      const token = done?.f === "write" && done.token !== undefined ? done.token : inv.token;
      writes.push({
        lane,
        grant: inv.grant,
        token: token !== undefined ? String(token) : null,
        start,
        time,
        status,
        ops: refs,
      });
    }
  }

  const faults = pairFaults(nemesisOps, endMs);
  for (const op of nemesisOps)
    placeOf.set(op.index, { lane: laneOfNode(op.node) ?? "", time: nsToMs(op.time) });

  const lanes = buildLanes(clients, schedule, faults);
  const anomalies = buildAnomalyLinks(verdicts, placeOf, writes);
  const writeCounts: Record<WriteStatus, number> = { accepted: 0, rejected: 0, uncertain: 0, failed: 0 };
  for (const w of writes) writeCounts[w.status]++;

  return {
    lanes,
    holds,
    attempts,
    writes,
    faults,
    anomalies,
    startMs: 0,
    endMs,
    stats: {
      ops: ops.length,
      clients: clients.size,
      grants: holds.length,
      acquireAttempts: holds.length + attempts.length,
      writes: writeCounts,
      faults: faults.length,
      durationMs: endMs,
    },
  };
}

/** The lane a nemesis `node` names; "server:leader" keeps its own lane. */
function laneOfNode(node: string | undefined): string | undefined {
  if (node === undefined || node === "") return undefined;
  return node;
}

function buildLanes(clients: Set<ClientId>, schedule: Schedule | undefined, faults: Fault[]): Lane[] {
  const ids = new Set<string>();
  for (const c of [...clients].sort(byClientId)) ids.add(clientLane(c));
  const servers = new Set<string>();
  for (let i = 0; i < (schedule?.options.servers ?? 0); i++) servers.add(`server:${i}`);
  let resource = false;
  const others = new Set<string>();
  for (const f of faults) {
    for (const l of f.lanes) {
      if (l.startsWith("client:")) ids.add(l);
      else if (l.startsWith("server:")) servers.add(l);
      else if (l === "resource") resource = true;
      else others.add(l);
    }
  }
  const byNumber = (a: string, b: string) => {
    const na = Number(a.split(":")[1]);
    const nb = Number(b.split(":")[1]);
    if (Number.isNaN(na) || Number.isNaN(nb)) return a.localeCompare(b);
    return na - nb;
  };
  const lanes: Lane[] = [...ids].sort(byNumber).map((id) => ({ id, label: labelOf(id), kind: "client" }));
  for (const id of [...servers].sort(byNumber)) lanes.push({ id, label: labelOf(id), kind: "server" });
  if (resource) lanes.push({ id: "resource", label: "resource", kind: "resource" });
  for (const id of [...others].sort()) lanes.push({ id, label: id, kind: "other" });
  return lanes;
}

function labelOf(id: string): string {
  const [kind, n] = id.split(":");
  if (n === "leader") return "server (leader)";
  return n === undefined ? id : `${kind} ${n}`;
}

/** Reads the first finite number among `keys` of a nemesis op's value (or the value itself). */
function numberIn(value: unknown, keys: readonly string[]): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value !== "object" || value === null) return undefined;
  const rec = value as Record<string, unknown>;
  for (const k of keys) {
    const v = rec[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return undefined;
}

function stringIn(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = (value as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

function nodesIn(value: unknown, key: string): string[] {
  if (typeof value !== "object" || value === null) return [];
  const v = (value as Record<string, unknown>)[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** The two sides of a partition, from `value: { a, b }` or `value: { groups: [a, b] }`. */
function partitionSides(op: NemesisOp): { a: string[]; b: string[] } {
  let a = nodesIn(op.value, "a");
  let b = nodesIn(op.value, "b");
  if (a.length === 0 && b.length === 0 && typeof op.value === "object" && op.value !== null) {
    const groups = (op.value as Record<string, unknown>).groups;
    if (Array.isArray(groups)) {
      a = nodesIn({ g: groups[0] }, "g");
      b = nodesIn({ g: groups[1] }, "g");
    }
  }
  if (a.length === 0 && b.length === 0 && op.node) a = [op.node];
  return { a, b };
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : "−"}${Math.abs(ms)} ms`;
}

/**
 * Nemesis start op → the fault drawn for it (named like its start) and the op that ends it,
 * from the fault kinds' timeline pairing (src/schedule/faults/): every pause kind starts with
 * `pause`; clock faults, which have no end op, are drawn below.
 */
const STARTS = new Map<string, { kind: FaultKind; end: string }>(
  Object.values(FAULT_DESCRIPTORS).flatMap(({ timeline: { start, end } }) =>
    end === null ? [] : [[start, { kind: start as FaultKind, end }] as const],
  ),
);

/**
 * Turns nemesis ops into drawn faults. A start and its end may each be recorded as an invoke
 * and a completion (Jepsen style) or as one op; a repeated start of a fault already open on
 * the same node is the same fault, so only the first op of each start/end counts.
 */
export function pairFaults(nemesis: readonly NemesisOp[], endMs: number): Fault[] {
  const faults: Fault[] = [];
  const open = new Map<string, Fault>(); // key: kind + node (partitions: kind + index)
  for (const op of nemesis) {
    const t = nsToMs(op.time);
    const start = STARTS.get(op.f);
    if (start) {
      const key =
        start.kind === "partition"
          ? `partition\u0000${JSON.stringify(op.value ?? op.node)}`
          : `${start.kind}\u0000${op.node ?? ""}`;
      const already = open.get(key);
      if (already) {
        already.ops.push(op.index);
        continue;
      }
      const f = startFault(op, start.kind, t, endMs);
      open.set(key, f);
      faults.push(f);
      continue;
    }
    const ended = [...STARTS.values()].find((s) => s.end === op.f);
    if (ended) {
      let closed = false;
      // A heal that repeats its partition's value ends that partition; any other heal ends all.
      const healKey = `partition\u0000${JSON.stringify(op.value ?? op.node)}`;
      const exactHeal = ended.kind === "partition" && open.has(healKey);
      for (const [key, f] of open) {
        if (f.kind !== ended.kind) continue;
        const sameNode =
          ended.kind === "partition"
            ? !exactHeal || key === healKey
            : op.node === undefined || key === `${f.kind}\u0000${op.node}`;
        if (!sameNode) continue;
        f.end = Math.max(f.start, t);
        f.open = false;
        f.ops.push(op.index);
        open.delete(key);
        closed = true;
      }
      if (!closed) {
        // An end whose start we saw close already (its invoke/completion twin): attach it there.
        const last = [...faults].reverse().find((f) => f.kind === ended.kind && f.end <= t);
        last?.ops.push(op.index);
      }
      continue;
    }
    if (op.f === "clock-jump") {
      const delta = numberIn(op.value, ["deltaMs", "jumpMs", "delta", "offsetMs", "offset", "ms"]);
      const prev = faults[faults.length - 1];
      if (prev?.kind === "clock-jump" && prev.lanes[0] === op.node && prev.start === t) {
        prev.ops.push(op.index);
        continue;
      }
      faults.push({
        kind: "clock-jump",
        lanes: op.node ? [op.node] : [],
        start: t,
        end: t,
        open: false,
        label: delta === undefined ? "clock jump" : `clock ${signed(delta)}`,
        ops: [op.index],
      });
      continue;
    }
    if (op.f === "clock-drift") {
      const rate = numberIn(op.value, ["rate", "drift"]);
      const prev = faults.find((f) => f.kind === "clock-drift" && f.open && f.lanes[0] === op.node);
      if (prev) {
        prev.end = t;
        prev.open = false;
      }
      faults.push({
        kind: "clock-drift",
        lanes: op.node ? [op.node] : [],
        start: t,
        end: endMs,
        open: true,
        label:
          rate === undefined
            ? "clock drift"
            : `clock drift ${rate >= 0 ? "+" : "−"}${Math.round(Math.abs(rate) * 1000) / 10}%`,
        ops: [op.index],
      });
    }
  }
  return faults;
}

function startFault(op: NemesisOp, kind: FaultKind, t: number, endMs: number): Fault {
  const base = { kind, start: t, end: Math.max(t, endMs), open: true, ops: [op.index] };
  if (kind === "partition") {
    const { a, b } = partitionSides(op);
    const oneWay =
      typeof op.value === "object" &&
      op.value !== null &&
      (op.value as Record<string, unknown>).oneWay === true;
    const sides = b.length > 0 ? `${a.join(", ")} ${oneWay ? "→" : "✕"} ${b.join(", ")}` : a.join(", ");
    return { ...base, lanes: [...new Set([...a, ...b])], label: `partition ${sides}` };
  }
  const lanes = op.node ? [op.node] : [];
  if (kind === "pause") {
    const d = numberIn(op.value, ["durationMs", "duration", "ms"]);
    // A pause-in-call says which call it landed in (and whether that call was still open).
    const call = stringIn(op.value, "call");
    const inCall =
      call === undefined
        ? ""
        : ` ${(op.value as Record<string, unknown>).inCall === false ? "after" : "in"} ${call} #${numberIn(op.value, ["occurrence"]) ?? 0}`;
    return { ...base, lanes, label: `${d === undefined ? "pause" : `pause ${d} ms`}${inCall}` };
  }
  if (kind === "delay") {
    const extra = numberIn(op.value, ["extraMs", "delayMs", "ms"]);
    const to = stringIn(op.value, "to");
    return {
      ...base,
      lanes,
      label: `delay${to ? ` → ${to}` : ""}${extra === undefined ? "" : ` +${extra} ms`}`,
    };
  }
  return { ...base, lanes, label: kind };
}

function firstSentence(text: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(text);
  return m?.[1] ?? text;
}

function buildAnomalyLinks(
  verdicts: readonly Verdict[],
  placeOf: Map<number, { lane: string; time: number }>,
  writes: readonly WriteMark[],
): AnomalyLink[] {
  const writeOf = new Map<number, WriteMark>();
  for (const w of writes) for (const i of w.ops) writeOf.set(i, w);
  const links: AnomalyLink[] = [];
  const headline = (a: Anomaly): string => {
    const w0 = a.ops[0] === undefined ? undefined : writeOf.get(a.ops[0]);
    const w1 = a.ops[1] === undefined ? undefined : writeOf.get(a.ops[1]);
    if (!w0 || !w1) return `${a.kind}: ${firstSentence(a.explanation)}`;
    const who = (w: WriteMark) => w.lane.replace(":", " ");
    const tok = (w: WriteMark) => (w.token !== null ? ` (token ${w.token})` : ` (grant ${w.grant})`);
    const verb =
      w0.status === "accepted" ? "accepted" : w0.status === "uncertain" ? "maybe accepted" : w0.status;
    return `${a.kind}: ${who(w0)}'s write${tok(w0)} ${verb} after ${who(w1)}'s${tok(w1)}`;
  };
  const pick = (a: Anomaly, i: number) => {
    const idx = a.ops[i];
    return idx === undefined ? null : (placeOf.get(idx) ?? null);
  };
  for (const v of verdicts) {
    for (const a of v.anomalies) {
      links.push({
        n: links.length + 1,
        checker: v.checker,
        kind: a.kind,
        explanation: a.explanation,
        headline: headline(a),
        from: pick(a, 0),
        to: pick(a, 1),
        time: a.time !== undefined ? nsToMs(a.time) : null,
        ops: [...a.ops],
      });
    }
  }
  return links;
}
