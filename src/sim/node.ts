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
import type { SimEvent } from "./event-queue.js";
import { at, type SimCore } from "./scheduler.js";

export interface Timer {
  readonly node: SimNode;
  readonly deadlineMono: number;
  readonly fire: () => void;
  event: SimEvent | null;
}

/** Work that reached a node: run `handle` there, or `refuse` if the node is down. */
export interface Delivery {
  readonly handle: () => void;
  readonly refuse: (() => void) | undefined;
}

export interface SimNode {
  /** "client:0", "server:2", "resource". */
  readonly name: string;
  readonly core: SimCore;
  readonly clock: NodeClock;
  pauseDepth: number;
  crashed: boolean;
  readonly timers: Set<Timer>;
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
    timers: new Set(),
    inbox: [],
    dueTimers: [],
    onCrash: null,
    onRestart: null,
  };
}

export function isRunning(node: SimNode): boolean {
  return node.pauseDepth === 0 && !node.crashed;
}

/** Calls `fire` once `delayMs` has passed on the node's monotonic clock (and it is running). */
export function setTimer(node: SimNode, delayMs: number, fire: () => void): Timer {
  const core = node.core;
  const timer: Timer = { node, deadlineMono: monoAt(node.clock, core.now) + delayMs, fire, event: null };
  node.timers.add(timer);
  scheduleTimer(timer);
  return timer;
}

export function cancelTimer(timer: Timer): void {
  if (timer.event !== null) timer.event.cancelled = true;
  timer.event = null;
  timer.node.timers.delete(timer);
}

function scheduleTimer(timer: Timer): void {
  const { node } = timer;
  const time = trueTimeOfMono(node.clock, timer.deadlineMono, node.core.now);
  timer.event = at(node.core, time, () => timerDue(timer));
}

function timerDue(timer: Timer): void {
  const node = timer.node;
  timer.event = null;
  node.timers.delete(timer);
  if (node.crashed) return;
  if (node.pauseDepth > 0) node.dueTimers.push(timer);
  else timer.fire();
}

/** Hands work that arrived over the network to the node. */
export function deliver(node: SimNode, d: Delivery): void {
  if (node.crashed) d.refuse?.();
  else if (node.pauseDepth > 0) node.inbox.push(d);
  else d.handle();
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
  for (const d of messages) at(node.core, node.core.now, () => deliver(node, d));
  for (const t of timers) at(node.core, node.core.now, () => runDueTimer(t));
}

function runDueTimer(timer: Timer): void {
  const node = timer.node;
  if (node.crashed) return;
  if (node.pauseDepth > 0) node.dueTimers.push(timer);
  else timer.fire();
}

export function crashNode(node: SimNode): void {
  if (node.crashed) return;
  node.crashed = true;
  for (const t of node.timers) if (t.event !== null) t.event.cancelled = true;
  node.timers.clear();
  node.dueTimers.length = 0;
  const refused = node.inbox.splice(0);
  node.onCrash?.();
  for (const d of refused) d.refuse?.();
}

export function restartNode(node: SimNode): void {
  if (!node.crashed) return;
  node.crashed = false;
  node.onRestart?.();
}

/** Changes the node's clock rate and moves its pending timers accordingly. */
export function driftNode(node: SimNode, rate: number): void {
  setClockRate(node.clock, node.core.now, rate);
  for (const t of node.timers) {
    if (t.event !== null) t.event.cancelled = true;
    scheduleTimer(t);
  }
}
