/**
 * The flag parsers the subcommands share: commander argument parsers (they throw
 * InvalidArgumentError, which commander prints and exits 2 on) and parsers of flag text into
 * values (they return an InputError naming the flag).
 */
import { InvalidArgumentError } from "commander";
import {
  CLUSTERS,
  type Cluster,
  FAULT_CATEGORIES,
  type FaultCategory,
  PARTITION_MODES,
  type PartitionMode,
  RESOURCE_MODES,
  type ResourceMode,
} from "../api/catalog.js";
import type { Shard } from "../report/gate-result.js";
import { err, type InputError, ok, type Result } from "../result.js";

/** A commander parser of a whole number in min..max; anything else is rejected with `message`. */
export function wholeNumberArg(min: number, message: string, max = Number.POSITIVE_INFINITY) {
  return (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(message);
    return n;
  };
}

/** `--runs <n>` and the like: "<flag> must be a positive integer". */
export function positiveIntArg(flag: string): (text: string) => number {
  return wholeNumberArg(1, `${flag} must be a positive integer`);
}

/** `--seed <n>`: a 32-bit unsigned integer. */
export const seedArg = wholeNumberArg(0, "the seed must be an integer in 0..4294967295", 0xffffffff);

/** `--margin <ms>`: a timing margin, 0 for none. */
export const marginArg = wholeNumberArg(0, "--margin must be a whole number of ms ≥ 0");

/** `--resource <mode>`, if given. */
export function parseResourceFlag(text: string | undefined): Result<ResourceMode | undefined, InputError> {
  if (text === undefined) return ok(undefined);
  if (!(RESOURCE_MODES as readonly string[]).includes(text))
    return err({ field: "--resource", message: `expected one of ${RESOURCE_MODES.join(", ")}` });
  return ok(text as ResourceMode);
}

/** `--faults <list>`: comma-separated fault categories; "none" and empty items are skipped. */
export function parseFaultsFlag(text: string): Result<FaultCategory[], InputError> {
  const out: FaultCategory[] = [];
  for (const f of text
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "" && x !== "none")) {
    if (!(FAULT_CATEGORIES as readonly string[]).includes(f)) {
      return err({
        field: "--faults",
        message: `unknown fault category "${f}"; expected some of ${FAULT_CATEGORIES.join(", ")} (or none)`,
      });
    }
    out.push(f as FaultCategory);
  }
  return ok(out);
}

/** `--cluster <kind>`: where real servers run. */
export function parseClusterFlag(text: string): Result<Cluster, InputError> {
  const cluster = CLUSTERS.find((c) => c === text);
  if (cluster === undefined)
    return err({ field: "--cluster", message: `expected ${CLUSTERS.join(" or ")}, got "${text}"` });
  return ok(cluster);
}

/** `--partition-mode <mode>`, if given: what a two-way partition does on real servers. */
export function parsePartitionModeFlag(
  text: string | undefined,
): Result<PartitionMode | undefined, InputError> {
  if (text === undefined) return ok(undefined);
  if (!(PARTITION_MODES as readonly string[]).includes(text))
    return err({
      field: "--partition-mode",
      message: `expected ${PARTITION_MODES.join(" or ")}, got "${text}"`,
    });
  return ok(text as PartitionMode);
}

/** `--shard <i/n>`: the i-th of n parts, 1 ≤ i ≤ n. */
export function parseShardFlag(text: string): Result<Shard, InputError> {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count) {
    return err({ field: "--shard", message: `expected i/n with 1 <= i <= n (e.g. 2/4), got "${text}"` });
  }
  return ok({ index, count });
}
