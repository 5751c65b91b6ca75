/**
 * Porcupine's etcd Jepsen logs (test_data/jepsen/etcd_*.log in the reference data) and the
 * verdicts Porcupine's porcupine_test.go expects of them, shared by `bench:lin` and the
 * corpus test.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LinOp } from "../src/checkers/linearizable/models/model.js";
import { parseJepsenEtcdLog } from "../src/checkers/linearizable/porcupine.js";

/** The logs Porcupine finds linearizable (etcd_095.log is empty and left out). */
export const PORCUPINE_ETCD_LINEARIZABLE: ReadonlySet<number> = new Set([
  2, 5, 7, 18, 25, 31, 38, 45, 48, 49, 51, 53, 56, 67, 75, 76, 80, 87, 92, 98, 100, 101, 102,
]);

export interface EtcdLog {
  /** The log's number, 0 … 102. */
  i: number;
  ops: LinOp<unknown, unknown>[];
}

/** Reads and parses the 102 non-empty logs under `dataDir`; throws on a log that does not parse. */
export function loadPorcupineEtcdLogs(dataDir: string): EtcdLog[] {
  const logs: EtcdLog[] = [];
  for (let i = 0; i <= 102; i++) {
    if (i === 95) continue;
    const name = `etcd_${String(i).padStart(3, "0")}.log`;
    const ops = parseJepsenEtcdLog(readFileSync(join(dataDir, "porcupine/jepsen", name), "utf8"));
    if (!ops.ok) throw new Error(`${name}: ${JSON.stringify(ops.error)}`);
    logs.push({ i, ops: ops.value as LinOp<unknown, unknown>[] });
  }
  return logs;
}
