/**
 * `gate(options)`: what `lockcheck gate` does between its flags and its output: find and load
 * the gate config, find its corpus, run this shard's items (src/runner/gate/gate.ts) and, if
 * asked, write the results as JUnit XML.
 */
import type { GateReport, Shard } from "../report/gate-result.js";
import type { InputError, Result } from "../result.js";
import { err, ok } from "../result.js";
import { type GateEvents, gateJUnitSuites, planGate, runGate, shardItems } from "../runner/gate/gate.js";
import { DEFAULT_CONFIG_FILES, findDefaultConfig, loadGateConfig } from "../runner/gate/gate-config.js";
import { findCorpusEntries } from "../runner/gate/gate-corpus.js";
import { writeJUnitFile } from "./junit-file.js";

export type { GateEvents };
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
  const corpus = await findCorpusEntries(config.value.corpus, config.value.baseDir);
  if (!corpus.ok) return err([corpus.error]);
  const items = shardItems(planGate(config.value, corpus.value), shard);
  const report = await runGate(items, config.value, shard, o.events ?? {}, { workers: o.workers ?? 1 });
  if (o.junit !== undefined) {
    const written = await writeJUnitFile(o.junit, gateJUnitSuites(report), "lockcheck gate");
    if (!written.ok) return err([written.error]);
  }
  return ok(report);
}
