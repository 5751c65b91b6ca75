/**
 * `cleanDocker(options)`: what `lockcheck clean` does between its flags and its output: find
 * (or remove) the Docker containers and networks lockcheck left behind, selected by label only
 * (src/real/docker/labels.ts). dockerode is heavy to load: the docker modules are imported only
 * when this runs.
 */
import type { CleanReport, FoundObject } from "../real/docker/cleanup.js";
import { err, ok, type Result } from "../result.js";

export type { CleanReport, FoundObject };

export interface CleanOptions {
  /** Only the objects of this run. */
  runId?: string;
  /** Also those of lockcheck processes still running. */
  includeLive: boolean;
  /** List what would be removed, remove nothing. */
  dryRun: boolean;
}

export type CleanOutcome =
  | { kind: "dry-run"; found: FoundObject[] }
  | { kind: "removed"; report: CleanReport };

/** What was found or removed, or why no engine answered. */
export async function cleanDocker(o: CleanOptions): Promise<Result<CleanOutcome, string>> {
  const { connectEngine } = await import("../real/docker/engine.js");
  const { findObjects, removeObjects } = await import("../real/docker/cleanup.js");
  const docker = await connectEngine();
  if (!docker.ok) return err(docker.error);
  const selection = { ...(o.runId === undefined ? {} : { runId: o.runId }), includeLive: o.includeLive };
  if (o.dryRun) return ok({ kind: "dry-run", found: await findObjects(docker.value, selection) });
  return ok({ kind: "removed", report: await removeObjects(docker.value, selection) });
}
