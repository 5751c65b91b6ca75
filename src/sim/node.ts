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
import { createClock, monoAt, type NodeClock, setClockRate, trueTimeOfMono } from "./clock.js";
import { cancelEvent, type SimEvent } from "./event-queue.js";
import { atWith, type SimCore } from "./scheduler.js";

/**
 * A pending timer; pending timers of a node form a doubly linked list (cheap add/remove).
 * Hot paths may embed these fields in an object of their own and arm it with `armTimer`
 * (one allocation instead of two).
 */
export interface Timer {
  node: SimNode;
  deadlineMono: number;
  fire: (arg: never, node: SimNode) => void;
  arg: unknown;
  event: SimEvent | null;
  prev: Timer | null;
  next: Timer | null;
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
  /** Head of the pending-timer list. */
  timers: Timer | null;
  readonly inbox: Delivery[];
  readonly dueTimers: Timer[];
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
    timers: null,
    inbox: [],
    dueTimers: [],
    onCrash: null,
    onRestart: null,
  };
}

export function isRunning(node: SimNode): boolean {
  return node.pauseDepth === 0 && !node.crashed;
}

function link(timer: Timer): void {
  const node = timer.node;
  timer.next = node.timers;
  if (node.timers !== null) node.timers.prev = timer;
  node.timers = timer;
}

function unlink(timer: Timer): void {
  if (timer.prev !== null) timer.prev.next = timer.next;
  else if (timer.node.timers === timer) timer.node.timers = timer.next;
  if (timer.next !== null) timer.next.prev = timer.prev;
  timer.prev = timer.next = null;
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
  const timer: Timer = { node, deadlineMono: 0, fire, arg, event: null, prev: null, next: null };
  armTimer(timer, delayMs);
  return timer;
}

/** Starts `timer` (its node, fire and arg set; not pending): it fires `delayMs` from now. */
export function armTimer(timer: Timer, delayMs: number): void {
  const node = timer.node;
  // A negative or NaN delay (a bug in client code) fires at once rather than corrupting the agenda.
  timer.deadlineMono = monoAt(node.clock, node.core.now) + (Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs));
  link(timer);
  scheduleTimer(timer);
}

/** Cancels a timer; harmless if it already fired or was cancelled. */
export function cancelTimer(timer: Timer): void {
  if (timer.event === null) return;
  cancelEvent(timer.node.core.queue, timer.event);
  timer.event = null;
  unlink(timer);
}

function scheduleTimer(timer: Timer): void {
  const { node } = timer;
  const time = trueTimeOfMono(node.clock, timer.deadlineMono, node.core.now);
  timer.event = atWith(node.core, time, timerDue, timer, undefined);
}

function timerDue(timer: Timer): void {
  const node = timer.node;
  timer.event = null;
  unlink(timer);
  if (node.crashed) return;
  if (node.pauseDepth > 0) node.dueTimers.push(timer);
  else timer.fire(timer.arg as never, node);
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
  for (let t = node.timers; t !== null; t = t.next) {
    if (t.event !== null) cancelEvent(node.core.queue, t.event);
    t.event = null;
  }
  node.timers = null;
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

/** Changes the node's clock rate and moves its pending timers accordingly. */
export function driftNode(node: SimNode, rate: number): void {
  setClockRate(node.clock, node.core.now, rate);
  for (let t = node.timers; t !== null; t = t.next) {
    if (t.event !== null) cancelEvent(node.core.queue, t.event);
    scheduleTimer(t);
  }
}
