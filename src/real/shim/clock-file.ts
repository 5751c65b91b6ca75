/**
 * The parent's side of the clock shim (clockshim.c): a small file that a shimmed process maps
 * and reads on every wall-clock call. Layout (little-endian), guarded by a seqlock:
 *   0  u64 seq        odd while a write is in progress
 *   8  i64 offset_ns  added to the real wall clock
 *  16  f64 rate       extra seconds per real second since anchor (drift)
 *  24  i64 anchor_ns  real wall-clock time the drift is measured from
 * Writes go through pwrite into the page cache, which the shared mapping sees at once.
 */
import { closeSync, openSync, writeSync } from "node:fs";

const FILE_SIZE = 4096;

export interface ClockFile {
  readonly path: string;
  /** Steps the clock by `deltaMs` (forward if positive). */
  jump(deltaMs: number): void;
  /** From now on the clock runs at (1 + rate) × real speed. */
  drift(rate: number): void;
  /** Current offset from the real wall clock, in ms. */
  offsetMs(): number;
  close(): void;
}

const realNowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;

export function createClockFile(path: string): ClockFile {
  const fd = openSync(path, "w+");
  writeSync(fd, Buffer.alloc(FILE_SIZE), 0, FILE_SIZE, 0);
  let seq = 0n;
  let offsetNs = 0n;
  let rate = 0;
  let anchorNs = 0n;

  const offsetAt = (nowNs: bigint): bigint =>
    rate === 0 ? offsetNs : offsetNs + BigInt(Math.trunc(rate * Number(nowNs - anchorNs)));

  const publish = (): void => {
    const head = Buffer.alloc(8);
    head.writeBigUInt64LE(++seq);
    writeSync(fd, head, 0, 8, 0);
    const body = Buffer.alloc(24);
    body.writeBigInt64LE(offsetNs, 0);
    body.writeDoubleLE(rate, 8);
    body.writeBigInt64LE(anchorNs, 16);
    writeSync(fd, body, 0, 24, 8);
    head.writeBigUInt64LE(++seq);
    writeSync(fd, head, 0, 8, 0);
  };

  return {
    path,
    jump(deltaMs) {
      offsetNs += BigInt(Math.trunc(deltaMs)) * 1_000_000n;
      publish();
    },
    drift(newRate) {
      const now = realNowNs();
      offsetNs = offsetAt(now);
      anchorNs = now;
      rate = newRate;
      publish();
    },
    offsetMs: () => Number(offsetAt(realNowNs()) / 1_000_000n),
    close: () => closeSync(fd),
  };
}
