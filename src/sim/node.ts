/**
 * A simulated process (client, lock server, resource): its clocks, timers, and what it
 * does when paused or crashed.
 *
 * - Timers run on the node's monotonic clock (see clock.ts); a drift change reschedules them.
 * - Paused (GC pause, SIGSTOP): the node runs none of its timers or handlers. Messages that
 *   arrive queue in its inbox and timers that come due wait. Pauses nest (a timed pause and a
 *   checkpoint pause may overlap); the node runs again when the last one ends. On resume it
 *   first handles queued messages in arrival order, then the timers that came due in
 *   deadline order — as a Node.js process stopped inside epoll_wait does when continued.
 * - Crashed: timers are cancelled, queued messages are refused (as a closed socket refuses
 *   them), and messages that arrive are refused until a restart. What a crash does to the
 *   node's own state is up to its `onCrash` hook (a Redis-like node forgets its keys).
 */
import type { CallBatch } from "./batch.js";
import { createClock, monoDeadline, type NodeClock, setClockRate, trueTimeOfMono } from "./clock.js";
import { cancelEvent, type SimEvent } from "./event-queue.js";
import { atAgain, atWith, type SimCore } from "./scheduler.js";

/**
 * A pending timer. Hot paths may embed these fields in an object of their own and arm it
 * with `armTimer` (one allocation instead of two).
 */
export interface Timer {
  node: SimNode;
  deadlineMono: number;
  fire: (arg: never, node: SimNode) => void;
  arg: unknown;
  /** The list it waits in; null when it is not pending. */
  list: TimerList | null;
  prev: Timer | null;
  next: Timer | null;
}

/**
 * A node's pending timers of one duration, in the order they were armed — which is also
 * deadline order, since the monotonic clock never goes back. As in Node.js's own timers, a
 * list has one agenda event, due at its head's deadline, whatever its length: arming a timer
 * behind others costs no agenda work, and cancelling one (every answered call cancels its
 * timeout) only unlinks it. After the head is cancelled the event stays where it is; if it
 * then finds nothing due it moves itself to the new head, and is not counted as an event.
 */
export interface TimerList {
  readonly node: SimNode;
  readonly durationMs: number;
  head: Timer | null;
  tail: Timer | null;
  /** Its agenda event, made on first use and put back in the agenda each time (not allocated
   * anew: a client's call timeouts empty and refill their list with every batch of calls). */
  event: SimEvent | null;
  /** Timers with a deadline up to this monotonic reading are due when `event` runs. */
  eventMono: number;
}
/**
 * A message that reached a node: `handle(message)` runs there, or `refuse(message)` if the
 * node is down. The message carries its own handlers, so sending one allocates nothing more.
 */
export interface Delivery {
  handle: (message: never) => void;
  refuse: ((message: never) => void) | null;
}

export interface SimNode {
  /** "client:0", "server:2", "resource". */
  readonly name: string;
  readonly core: SimCore;
  readonly clock: NodeClock;
  pauseDepth: number;
  crashed: boolean;
  /** Lists of pending timers, one per duration in use (few at a time). */
  readonly timerLists: TimerList[];
  readonly inbox: Delivery[];
  readonly dueTimers: Timer[];
  /** Reply batching (batch.ts): the client's current batch, the drain it began in, and
   * whether the client owes a drain. */
  batch: CallBatch | null;
  batchDrain: number;
  owing: boolean;
  /** Hooks for what a crash and a restart do to the node's state. */
  onCrash: (() => void) | null;
  onRestart: (() => void) | null;
}

export function createNode(core: SimCore, name: string): SimNode {
  return {
    name,
    core,
    clock: createClock(),
    pauseDepth: 0,
    crashed: false,
    timerLists: [],
    inbox: [],
    dueTimers: [],
    batch: null,
    batchDrain: -1,
    owing: false,
    onCrash: null,
    onRestart: null,
  };
}

export function isRunning(node: SimNode): boolean {
  return node.pauseDepth === 0 && !node.crashed;
}

const callThunk = (f: () => void): void => f();

/** Calls `fire` once `delayMs` has passed on the node's monotonic clock (and it is running). */
export function setTimer(node: SimNode, delayMs: number, fire: () => void): Timer {
  return setTimerWith(node, delayMs, callThunk, fire);
}

/** `setTimer` calling `fire(arg, node)`: the allocation-free form for hot paths. */
export function setTimerWith<T>(
  node: SimNode,
  delayMs: number,
  fire: (arg: T, node: SimNode) => void,
  arg: T,
): Timer {
  const timer: Timer = { node, deadlineMono: 0, fire, arg, list: null, prev: null, next: null };
  armTimer(timer, delayMs);
  return timer;
}

/** Starts `timer` (its node, fire and arg set; not pending): it fires `delayMs` from now. */
export function armTimer(timer: Timer, delayMs: number): void {
  const node = timer.node;
  // A negative or NaN delay (a bug in client code) fires at once rather than corrupting the agenda.
  // biome-ignore lint/complexity/useMathMinMax: Math.max(0, NaN) is NaN; this is 0.
  const duration = delayMs > 0 ? delayMs : 0;
  timer.deadlineMono = monoDeadline(node.clock, node.core.now, duration);
  const list = listFor(node, duration);
  append(list, timer);
  if (!isScheduled(list)) scheduleList(list);
}

/**
 * Arms `timer` as `armTimer` with `like`'s delay would, for a timer of `like`'s node armed at
 * the same instant right after it (`like` still pending): the same deadline, in the same list,
 * behind it. Skips working out the deadline and looking up the list again (a fan-out's calls).
 */
export function armTimerBehind(timer: Timer, like: Timer): void {
  const list = like.list;
  if (list === null || timer.node !== like.node)
    throw new Error("armTimerBehind: `like` is not pending on this node");
  timer.deadlineMono = like.deadlineMono;
  append(list, timer);
}

function append(list: TimerList, timer: Timer): void {
  timer.list = list;
  timer.prev = list.tail;
  timer.next = null;
  if (list.tail === null) list.head = timer;
  else list.tail.next = timer;
  list.tail = timer;
}

/** The list's event is in the agenda. */
function isScheduled(list: TimerList): boolean {
  return list.event !== null && list.event.index >= 0;
}

function listFor(node: SimNode, durationMs: number): TimerList {
  const lists = node.timerLists;
  for (let i = 0; i < lists.length; i++) {
    if (lists[i]!.durationMs === durationMs) return lists[i]!;
  }
  const list: TimerList = { node, durationMs, head: null, tail: null, event: null, eventMono: 0 };
  lists.push(list);
  return list;
}

/** Cancels a timer; harmless if it already fired or was cancelled. */
export function cancelTimer(timer: Timer): void {
  const list = timer.list;
  if (list === null) return;
  unlink(list, timer);
  if (list.head === null) dropList(list);
}

function unlink(list: TimerList, timer: Timer): void {
  if (timer.prev === null) list.head = timer.next;
  else timer.prev.next = timer.next;
  if (timer.next === null) list.tail = timer.prev;
  else timer.next.prev = timer.prev;
  timer.list = timer.prev = timer.next = null;
}

/** Empty lists a node keeps for reuse (a client's call timeout comes back with every call). */
const KEPT_EMPTY_LISTS = 4;

/** Cancels an empty list's agenda event; keeps the list for reuse while the node has few. */
function dropList(list: TimerList): void {
  const node = list.node;
  if (list.event !== null) cancelEvent(node.core.queue, list.event);
  const lists = node.timerLists;
  if (lists.length <= KEPT_EMPTY_LISTS) return;
  const i = lists.indexOf(list);
  if (i < 0) return; // already dropped (a timer's callback emptied its own list)
  const last = lists.pop()!;
  if (i < lists.length) lists[i] = last;
}

/** Puts the list's event at its head's deadline (the list is not empty). */
function scheduleList(list: TimerList): void {
  scheduleListFor(list, list.head!.deadlineMono);
}

/** Puts the list's event where the monotonic clock reads `mono`; timers up to `mono` are then due. */
function scheduleListFor(list: TimerList, mono: number): void {
  const { node } = list;
  list.eventMono = mono;
  const time = trueTimeOfMono(node.clock, mono, node.core.now);
  if (list.event === null) list.event = atWith(node.core, time, listDue, list, undefined);
  else atAgain(node.core, time, list.event);
}

/**
 * Fires the list's due timers in order, counting each as an event of its own (and a stale
 * event, which fires none, as no event). Like Node.js, which runs microtasks between two timer
 * callbacks, it stops after one that settled a wait of client code and continues in a fresh event
 * at the same instant, after the client code has run.
 */
function listDue(list: TimerList): void {
  const node = list.node;
  const dueMono = list.eventMono;
  let fired = 0;
  let timer = list.head;
  while (timer !== null && timer.deadlineMono <= dueMono && !node.core.settled && !node.crashed) {
    unlink(list, timer);
    fired++;
    if (node.pauseDepth > 0) node.dueTimers.push(timer);
    else timer.fire(timer.arg as never, node);
    timer = list.head;
  }
  node.core.events += fired - 1;
  // A fired timer may have armed another in this list (which scheduled the list) or crashed the node.
  if (isScheduled(list) || node.crashed) return;
  if (timer === null) dropList(list);
  else scheduleListFor(list, Math.max(dueMono, timer.deadlineMono));
}

/** Hands a message that arrived over the network to the node. */
export function deliver(node: SimNode, d: Delivery): void {
  if (node.crashed) d.refuse?.(d as never);
  else if (node.pauseDepth > 0) node.inbox.push(d);
  else d.handle(d as never);
}

export function pauseNode(node: SimNode): void {
  node.pauseDepth++;
}

export function resumeNode(node: SimNode): void {
  if (node.pauseDepth === 0) return;
  node.pauseDepth--;
  if (node.pauseDepth > 0 || node.crashed) return;
  // Run the backlog as fresh events, so client code can react between items.
  const messages = node.inbox.splice(0);
  const timers = node.dueTimers.splice(0);
  for (const d of messages) atWith(node.core, node.core.now, deliver, node, d);
  for (const t of timers) atWith(node.core, node.core.now, runDueTimer, t, undefined);
}

function runDueTimer(timer: Timer): void {
  const node = timer.node;
  if (node.crashed) return;
  if (node.pauseDepth > 0) node.dueTimers.push(timer);
  else timer.fire(timer.arg as never, node);
}

export function crashNode(node: SimNode): void {
  if (node.crashed) return;
  node.crashed = true;
  for (const list of node.timerLists) {
    if (list.event !== null) cancelEvent(node.core.queue, list.event);
    for (let t = list.head; t !== null; ) {
      const next = t.next;
      t.list = t.prev = t.next = null;
      t = next;
    }
  }
  node.timerLists.length = 0;
  node.dueTimers.length = 0;
  const refused = node.inbox.splice(0);
  node.onCrash?.();
  for (const d of refused) d.refuse?.(d as never);
}

export function restartNode(node: SimNode): void {
  if (!node.crashed) return;
  node.crashed = false;
  node.onRestart?.();
}

/**
 * Sets the node's monotonic clock back to `mono`, the reading when a pause began whose clocks
 * stopped (a suspended VM): the time it was paused is lost to both of its clocks (the wall
 * clock keeps its offset from the monotonic one), which run on from there at their rate.
 * Pending timers move later with the clock, and timers that came due during the pause wait
 * again until their deadlines. Call it at the resume, before `resumeNode`.
 */
export function rewindClock(node: SimNode, mono: number): void {
  const c = node.clock;
  c.mono0 = mono;
  c.t0 = node.core.now;
  rescheduleTimers(node);
  const due = node.dueTimers.splice(0);
  for (const t of due) {
    if (t.deadlineMono > mono) armTimer(t, t.deadlineMono - mono);
    else node.dueTimers.push(t);
  }
}

function rescheduleTimers(node: SimNode): void {
  for (const list of node.timerLists) {
    if (list.event !== null) cancelEvent(node.core.queue, list.event);
    if (list.head !== null) scheduleList(list);
  }
}

/** Changes the node's clock rate and moves its pending timers accordingly. */
export function driftNode(node: SimNode, rate: number): void {
  setClockRate(node.clock, node.core.now, rate);
  rescheduleTimers(node);
}
