/**
 * The `lockcheck gate` config: which targets to fuzz with which faults and budgets, what to
 * expect of each, and which folders of saved counterexamples to replay. Plain JSON
 * (lockcheck.config.json) or a module whose default export is the same object
 * (lockcheck.config.ts / .mts / .js / .mjs — see `loadGateConfig`).
 *
 * Expectations: `safe` — no violation may be found within the budget; `unsafe` — a violation
 * must be found within the budget. An `unsafe` entry is a canary: a known-broken lock that
 * lockcheck must keep catching, so a checker or generator that went blind fails the build.
 */
import { readFile } from "node:fs/promises";
import { dirname, extname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { FAULT_CATEGORIES } from "../../generators/bounds.js";
import { CLUSTERS } from "../../real/cluster-kind.js";
import { err, type InputError, ok, type Result } from "../../result.js";
import { describeIssue, formatJsonPath } from "../../schedule/load.js";
import { resourceModeSchema, scheduleOptionsSchema } from "../../schedule/schedule.js";
import { parseDuration } from "../../util/duration.js";
import { defaultExport, importModule } from "../../util/import-module.js";
import { pathExists } from "../../util/path-exists.js";

const durationSchema = z.string().refine((s) => parseDuration(s, "").ok, {
  message: 'expected a duration such as "500ms", "30s" or "2m"',
});

const faultsSchema = z.array(z.enum(FAULT_CATEGORIES));

/** How hard to look, per target: stop at whichever of `runs` and `time` comes first. */
const budgetFields = {
  /** Schedules to try. */
  runs: z.number().int().positive().optional(),
  /** Wall-clock budget, e.g. "30s". */
  time: durationSchema.optional(),
  /** Fault categories the generated schedules may use (default: all). `[]`: no faults. */
  faults: faultsSchema.optional(),
  /** Most clients in a schedule. */
  clients: z.number().int().positive().optional(),
};

export const gateTargetSchema = z.strictObject({
  /** Name in tables and JUnit; default "<target> (<resource>)". Must be unique. */
  name: z.string().min(1).optional(),
  /**
   * "sim:redlock", "redis:lease", … (see `lockcheck fuzz --help`), or a user's own lock:
   * "module:./path/to/lock.js" (resolved against the config file's folder; see docs/custom-locks.md).
   */
  target: z.string().min(1),
  /**
   * With a module: target whose lock runs on Redis or etcd: fuzz it on real servers lockcheck
   * starts (its redis:/etcd: target, as `fuzz --real`), not in the simulator.
   */
  real: z.boolean().optional(),
  resource: resourceModeSchema.optional(),
  expect: z.enum(["safe", "unsafe"]),
  /** Seed of this target's search; default: the config's seed. */
  seed: z.number().int().min(0).max(0xffffffff).optional(),
  /** Overrides of the target's world options (ttlMs, horizonMs, servers, …). */
  options: scheduleOptionsSchema.partial().optional(),
  ...budgetFields,
});
export type GateTargetConfig = z.infer<typeof gateTargetSchema>;

export const gateConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Seed of every target's search unless the target sets its own; default 1. */
  seed: z.number().int().min(0).max(0xffffffff).default(1),
  /** Budget and faults for targets that do not set their own. Default: 200 runs, every fault. */
  defaults: z.strictObject(budgetFields).default({}),
  targets: z.array(gateTargetSchema).default([]),
  /**
   * Folders of saved counterexamples to replay: each subfolder with a history.jsonl is one
   * entry. Relative to the config file. Default: "histories" if that folder exists, else none;
   * a folder named here must exist.
   */
  corpus: z.array(z.string().min(1)).optional(),
  /** Where run folders of failing runs are saved; default "lockcheck-out/gate". */
  output: z.string().min(1).default("lockcheck-out/gate"),
  /**
   * Where the servers of real targets (redis:…, etcd:…, library adapters, `real: true`) and of
   * real corpus entries run: local processes, or Docker containers (images from
   * LOCKCHECK_REDIS_IMAGE / LOCKCHECK_ETCD_IMAGE). Simulated targets ignore it. Default "process";
   * `lockcheck gate --cluster` overrides it.
   */
  cluster: z.enum(CLUSTERS).default("process"),
});

/** What a config file contains (defaults not yet applied): the type for `defineGateConfig`. */
export type GateConfigInput = z.input<typeof gateConfigSchema>;

/** A loaded config with defaults applied and paths made absolute. */
export type GateConfig = Omit<z.infer<typeof gateConfigSchema>, "corpus"> & {
  /** Absolute corpus folders. */
  corpus: string[];
  /** True when the config names no corpus: then a missing "histories" folder means no corpus, not an error. */
  defaultCorpus: boolean;
  /** Folder of the config file: module targets and relative paths resolve against it. */
  baseDir: string;
  file: string | null;
};

const DEFAULT_CORPUS = "histories";

export const DEFAULT_GATE_RUNS = 200;

/** Identity function that gives a .ts config its types: `export default defineGateConfig({ … })`. */
export function defineGateConfig(config: GateConfigInput): GateConfigInput {
  return config;
}

/** Config file names `lockcheck gate` looks for in the working folder, in this order. */
export const DEFAULT_CONFIG_FILES = [
  "lockcheck.config.ts",
  "lockcheck.config.mts",
  "lockcheck.config.js",
  "lockcheck.config.mjs",
  "lockcheck.config.json",
] as const;

export async function findDefaultConfig(dir: string): Promise<string | null> {
  for (const name of DEFAULT_CONFIG_FILES) {
    const path = join(dir, name);
    if (await pathExists(path)) return path;
  }
  return null;
}

/** Validates a config value; every problem becomes one InputError with its JSON path. */
export function parseGateConfig(
  data: unknown,
  file: string | null,
  baseDir: string,
): Result<GateConfig, InputError[]> {
  const parsed = gateConfigSchema.safeParse(data);
  if (!parsed.success) {
    return err(
      parsed.error.issues.map((issue) => {
        const e: InputError = { message: describeIssue(issue) };
        if (file !== null) e.file = file;
        const field = formatJsonPath(issue.path);
        if (field !== "") e.field = field;
        return e;
      }),
    );
  }
  const config = parsed.data;
  const problems: InputError[] = [];
  const names = new Set<string>();
  config.targets.forEach((t, i) => {
    const name = gateTargetName(t);
    if (names.has(name)) {
      problems.push({
        ...(file ? { file } : {}),
        field: `targets[${i}].name`,
        message: `"${name}" is used twice; give one a distinct name`,
      });
    }
    names.add(name);
  });
  if (problems.length > 0) return err(problems);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));
  return ok({
    ...config,
    corpus: (config.corpus ?? [DEFAULT_CORPUS]).map(abs),
    defaultCorpus: config.corpus === undefined,
    output: abs(config.output),
    baseDir,
    file,
  });
}

export function gateTargetName(t: GateTargetConfig): string {
  if (t.name !== undefined) return t.name;
  const target = t.real === true ? `${t.target} --real` : t.target;
  return t.resource === undefined ? target : `${target} (${t.resource})`;
}

export async function loadGateConfig(path: string): Promise<Result<GateConfig, InputError[]>> {
  const file = resolve(path);
  if (!(await pathExists(file))) return err([{ file: path, message: "no such file" }]);
  const baseDir = dirname(file);
  let data: unknown;
  if (extname(file) === ".json") {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (e) {
      return err([{ file: path, message: `cannot read: ${(e as Error).message}` }]);
    }
    try {
      data = JSON.parse(text);
    } catch (e) {
      return err([{ file: path, message: `not valid JSON: ${(e as Error).message}` }]);
    }
  } else {
    const mod = await importModule(file);
    if (!mod.ok) return err([mod.error]);
    data = defaultExport(mod.value) ?? mod.value.config;
    if (data === undefined)
      return err([{ file: path, message: "exports no config: use `export default { targets: [...] }`" }]);
  }
  return parseGateConfig(data, path, baseDir);
}
