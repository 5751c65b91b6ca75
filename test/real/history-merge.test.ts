/**
 * Assembling a real run's history from the per-process event files: ordered by the
 * processes' own timestamps (not by arrival), completions repeat their invoke's fields,
 * tokens stay exact past 2^53, open calls complete as info, and a partial last line (a
 * process killed mid-write) is skipped.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import type { EventLine } from "../../src/real/client/protocol.js";
import { appendNemesisEvent, clientEventsFile, mergeHistory } from "../../src/real/history.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lockcheck-test-merge-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (client: number, lines: EventLine[], tail = ""): void =>
  writeFileSync(clientEventsFile(dir, client), lines.map((l) => `${JSON.stringify(l)}\n`).join("") + tail);

describe("mergeHistory", () => {
  it("orders events from all files by their own timestamps and numbers them", () => {
    write(0, [
      { call: 0, time: 100, type: "invoke", fields: { f: "acquire", lock: "l" } },
      { call: 0, time: 400, type: "ok", fields: { grant: "0:0", token: "9007199254740993" } },
    ]);
    write(1, [
      { call: 0, time: 200, type: "invoke", fields: { f: "acquire", lock: "l" } },
      { call: 0, time: 300, type: "fail", fields: { error: "held" } },
    ]);
    appendNemesisEvent(dir, { time: 250, f: "pause", node: "client:0", value: { durationMs: 5 } });
    const ops = mergeHistory({ eventsDir: dir, clientIds: [0, 1], crashed: new Set(), endTime: 500 });
    expect(ops.map((o) => [o.index, o.time, o.process, o.type])).toEqual([
      [0, 100, 0, "invoke"],
      [1, 200, 1, "invoke"],
      [2, 250, "nemesis", "info"],
      [3, 300, 1, "fail"],
      [4, 400, 0, "ok"],
    ]);
    const granted = ops[4]!;
    expect(granted).toMatchObject({ f: "acquire", lock: "l", grant: "0:0", token: 9007199254740993n });
  });

  it("completes open calls as info (crashed or run-ended) and skips a partial last line", () => {
    write(
      0,
      [{ call: 0, time: 100, type: "invoke", fields: { f: "write", lock: "l", grant: "0:0", value: "v" } }],
      '{"call":1,"time":150,"ty',
    );
    write(1, [{ call: 0, time: 120, type: "invoke", fields: { f: "release", lock: "l", grant: "1:0" } }]);
    const ops = mergeHistory({ eventsDir: dir, clientIds: [0, 1], crashed: new Set([0]), endTime: 900 });
    expect(ops).toHaveLength(4);
    expect(ops.slice(2)).toEqual([
      expect.objectContaining({
        process: 0,
        type: "info",
        f: "write",
        grant: "0:0",
        error: "crashed",
        time: 900,
      }),
      expect.objectContaining({ process: 1, type: "info", f: "release", error: "run-ended", time: 900 }),
    ]);
  });

  it("a late-arriving report cannot reorder a history: the stamps decide", () => {
    // Client 0 (paused while its reply was in flight) wrote its events file late, but its
    // stamps say its write completed before client 1's began: no violation may be invented.
    write(1, [
      { call: 0, time: 10, type: "invoke", fields: { f: "acquire", lock: "l" } },
      { call: 0, time: 20, type: "ok", fields: { grant: "1:0", token: "2" } },
      {
        call: 1,
        time: 500,
        type: "invoke",
        fields: { f: "write", lock: "l", grant: "1:0", token: "2", value: "b" },
      },
      { call: 1, time: 510, type: "ok", fields: { accepted: true } },
    ]);
    write(0, [
      { call: 0, time: 1, type: "invoke", fields: { f: "acquire", lock: "l" } },
      { call: 0, time: 5, type: "ok", fields: { grant: "0:0", token: "1" } },
      {
        call: 1,
        time: 6,
        type: "invoke",
        fields: { f: "write", lock: "l", grant: "0:0", token: "1", value: "a" },
      },
      { call: 1, time: 8, type: "ok", fields: { accepted: true } },
    ]);
    appendFileSync(clientEventsFile(dir, 0), "");
    const ops = mergeHistory({ eventsDir: dir, clientIds: [1, 0], crashed: new Set(), endTime: 600 });
    const stale = checkOps(ops, ["stale-write"])[0]!;
    expect(stale.valid).toBe(true);
  });
});
