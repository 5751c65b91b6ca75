/**
 * The labels that mark every container and network lockcheck creates. `lockcheck clean`, the
 * exit handlers and the watcher (cleaner-main.ts) select what to remove by these labels only,
 * so they never touch anything else on the engine.
 *
 * - `lockcheck=1`: made by lockcheck (and nothing without it is ever removed);
 * - `lockcheck.run=<run id>`: which run made it (teardown of one run removes only its own);
 * - `lockcheck.owner=<host>/<pid>/<start time>`: the lockcheck process that owns the run, so
 *   `lockcheck clean` can leave alone the containers of a run that is still going on;
 * - `lockcheck.node=<schedule node>` on containers ("server:2", "resource").
 */
import { hostname } from "node:os";
import { processStartTime } from "../hygiene/processes.js";

export const LABEL_LOCKCHECK = "lockcheck";
export const LABEL_RUN = "lockcheck.run";
export const LABEL_OWNER = "lockcheck.owner";
export const LABEL_NODE = "lockcheck.node";

export type Labels = Record<string, string>;

/** Labels for something created by run `runId` of this process. */
export function runLabels(runId: string): Labels {
  return { [LABEL_LOCKCHECK]: "1", [LABEL_RUN]: runId, [LABEL_OWNER]: ownerLabel(process.pid) };
}

/** `<host>/<pid>/<start time>` of a process of this machine. */
export function ownerLabel(pid: number): string {
  return `${hostname()}/${pid}/${processStartTime(pid) ?? "gone"}`;
}

/**
 * Whether the owner named by a label is certainly gone: same host, and no process with that
 * pid and start time exists. An owner on another host (an engine shared between machines or
 * containers) is never presumed gone.
 */
export function ownerIsGone(owner: string | undefined): boolean {
  if (owner === undefined) return true;
  const [host, pid, start] = owner.split("/");
  if (host !== hostname() || pid === undefined || start === undefined) return false;
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0) return true;
  return processStartTime(n) !== start;
}

/** Docker API `filters` selecting lockcheck's objects: every one, or one run's. */
export function labelFilter(runId?: string): { label: string[] } {
  return {
    label: runId === undefined ? [`${LABEL_LOCKCHECK}=1`] : [`${LABEL_LOCKCHECK}=1`, `${LABEL_RUN}=${runId}`],
  };
}
