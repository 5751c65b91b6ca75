/**
 * Which faults need the clock shim on real redis-servers (`changesServerClock`): a clock fault
 * on a lock server (by number or as the leader) or on the resource does; a client's clock
 * fault (lockcheck moves the client's own clock) and faults that are not clock faults do not.
 * `lockcheck shrink` of a schedule with only client clock faults started its servers with the
 * shim, and so needed gcc where `lockcheck run` of the same schedule did not.
 */
import { describe, expect, it } from "vitest";
import { changesServerClock } from "../../src/schedule/faults/index.js";
import type { Fault } from "../../src/schedule/schedule.js";

const cases: [Fault, boolean][] = [
  [{ kind: "clock-jump", node: "server:2", at: 100, deltaMs: 5000 }, true],
  [{ kind: "clock-drift", node: "server:leader", at: 100, rate: 0.5 }, true],
  [{ kind: "clock-jump", node: "resource", at: 0, deltaMs: -300 }, true],
  [{ kind: "clock-drift", node: "client:0", at: 78, rate: -0.757 }, false],
  [{ kind: "clock-jump", node: "client:1", at: 10, deltaMs: 2000 }, false],
  [{ kind: "pause", node: "server:0", at: 10, durationMs: 500 }, false],
  [{ kind: "crash", node: "server:1", at: 10, restartAfterMs: 500 }, false],
];

describe("changesServerClock", () => {
  it.each(cases)("%j → %s", (fault, expected) => {
    expect(changesServerClock(fault)).toBe(expected);
  });
});
