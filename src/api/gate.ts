/**
 * `gate(options)`: what `lockcheck gate` does between its flags and its output: find and load
 * the gate config, find its corpus, run this shard's items (src/runner/gate/gate.ts) and, if
 * asked, write the results as JUnit XML.
 */
import { writeFileSync } from "node:fs";
import type { DockerRunOptions } from "../real/docker/world.js";
import type { GateReport, GateResult, Shard } from "../report/gate-result.js";
import type { InputError, Result } from "../result.js";
import { err, ok } from "../result.js";
import {
  type GateEvents,
  type GateItem,
  gateJUnitSuites,
  interruptedGateJUnitSuites,
  planGate,
  runGate,
  shardItems,
} from "../runner/gate/gate.js";
import { DEFAULT_CONFIG_FILES, findDefaultConfig, loadGateConfig } from "../runner/gate/gate-config.js";
import { findCorpusEntries } from "../runner/gate/gate-corpus.js";
import type { Cluster } from "./catalog.js";
import { writeJUnitFile } from "./junit-file.js";

export type { GateEvents, GateItem };
export { DEFAULT_CONFIG_FILES };

export interface GateOptions {
  /** The config file (default: the first of DEFAULT_CONFIG_FILES in `cwd`). */
  config?: string;
  cwd?: string;
  /** Run only this shard's items. */
  shard?: Shard | null;
  /** Threads fuzzing each simulated target (default 1). */
  workers?: number;
  /** Also write the results as JUnit XML here. */
  junit?: string;
  /** Where real targets' and real corpus entries' servers run (default: the config's `cluster`, else process). */
  cluster?: Cluster;
  /** With docker: images and Compose file (refused when the servers are local processes). */
  docker?: DockerRunOptions;
  events?: GateEvents;
}

export async function gate(o: GateOptions = {}): Promise<Result<GateReport, InputError[]>> {
  const shard = o.shard ?? null;
  const path = o.config ?? (await findDefaultConfig(o.cwd ?? process.cwd()));
  if (path === null)
    return err([
      { message: `no gate config: pass --config or create one of ${DEFAULT_CONFIG_FILES.join(", ")}` },
    ]);
  const config = await loadGateConfig(path);
  if (!config.ok) return config;
  const cluster = o.cluster ?? config.value.cluster;
  if (cluster !== "docker" && (o.docker?.images !== undefined || o.docker?.composeFile !== undefined))
    return err([
      {
        field: "--redis-image, --etcd-image, --compose",
        message:
          o.cluster === undefined
            ? `only with servers in containers: ${path} says "cluster": "${cluster}" (give --cluster docker)`
            : "only with servers in containers (cluster docker)",
      },
    ]);
  const corpus = await findCorpusEntries(
    config.value.corpus,
    config.value.baseDir,
    config.value.defaultCorpus,
  );
  if (!corpus.ok) return err([corpus.error]);
  const items = shardItems(planGate(config.value, corpus.value), shard);
  const report = await runGate(items, config.value, shard, o.events ?? {}, {
    workers: o.workers ?? 1,
    cluster,
    ...(o.docker === undefined ? {} : { docker: o.docker }),
  });
  if (o.junit !== undefined) {
    const written = await writeJUnitFile(o.junit, gateJUnitSuites(report), "lockcheck gate");
    if (!written.ok) return err([written.error]);
  }
  return ok(report);
}

/**
 * For a gate with `junit` that may be interrupted: a function that writes, at once and
 * synchronously (a signal handler cannot wait), the items that finished and the one that was
 * running (as an error) to `file`, so that a CI job cancelled or timed out still shows them;
 * it says where, or why it could not.
 */
export async function interruptedJUnitWriter(
  file: string,
): Promise<
  (
    done: readonly GateResult[],
    running: GateItem | null,
    shard: Shard | null,
  ) => { file: string; error?: string }
> {
  const { renderJUnit } = await import("../report/junit.js");
  return (done, running, shard) => {
    try {
      writeFileSync(
        file,
        renderJUnit(interruptedGateJUnitSuites(done, running, shard), "lockcheck gate"),
        "utf8",
      );
      return { file };
    } catch (e) {
      return { file, error: (e as Error).message };
    }
  };
}
