/**
 * History pin: for every simulated target, a fixed set of generated schedules (the standard
 * bench schedule, default fuzz schedules in every resource mode, and schedules with every
 * fault kind including pauses in calls) must simulate to exactly the history bytes recorded
 * in history-pin.fixture.json (sha256 of the JSONL lockcheck writes). Speed work on the
 * simulator must not change a single history; a change that has to is re-pinned on purpose:
 * `LOCKCHECK_REPIN=1 npx vitest run test/sim/history-pin.test.ts` rewrites the fixture.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { standardScheduleArb } from "../../bench/standard-schedule.js";
import { DEFAULT_FAULT_CATEGORIES, PAUSE_KINDS } from "../../src/generators/bounds.js";
import { scheduleArb } from "../../src/generators/schedule.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { SIM_TARGETS } from "../../src/targets/sim.js";
import type { Target } from "../../src/targets/target.js";
import { historyBytes } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("./history-pin.fixture.json", import.meta.url));
const REPIN = process.env.LOCKCHECK_REPIN === "1";

/** The bench's standard schedule, with every fault category the target can take. */
function standardArb(t: Target): fc.Arbitrary<Schedule> {
  const categories = t.hasLeader
    ? (["pause", "partition", "crash", "delay"] as const)
    : DEFAULT_FAULT_CATEGORIES;
  return standardScheduleArb(t, categories);
}

/** 30 schedules per target, from fixed seeds. */
function pinnedSchedules(t: Target): Schedule[] {
  const out: Schedule[] = [];
  out.push(...fc.sample(standardArb(t), { numRuns: 6, seed: 1 }));
  for (const resource of t.resources) {
    out.push(
      ...fc.sample(
        scheduleArb({
          target: t.name,
          resource,
          options: t.defaults,
          faults: { categories: DEFAULT_FAULT_CATEGORIES, leader: t.hasLeader },
        }),
        { numRuns: 4, seed: 11 },
      ),
    );
  }
  const everyFault = scheduleArb({
    target: t.name,
    resource: t.resources[0],
    options: t.defaults,
    workload: { maxClients: 5, maxCycles: 6 },
    faults: { categories: DEFAULT_FAULT_CATEGORIES, leader: t.hasLeader, pauses: PAUSE_KINDS, maxFaults: 10 },
  });
  out.push(...fc.sample(everyFault, { numRuns: 30 - out.length, seed: 23 }));
  return out;
}

function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

const pinned: Record<string, string[]> = REPIN ? {} : JSON.parse(readFileSync(FIXTURE, "utf8"));
const recorded: Record<string, string[]> = {};

describe.each(SIM_TARGETS.map((t) => [t.name, t] as const))("history pin: %s", (name, t) => {
  it("simulates every pinned schedule to the recorded history bytes", async () => {
    const schedules = pinnedSchedules(t);
    expect(schedules).toHaveLength(30);
    expect(schedules.some((s) => s.faults.some((f) => f.kind === "pause-in-call"))).toBe(true);
    const digests: string[] = [];
    for (const s of schedules) digests.push(digest(historyBytes((await t.run(s)).ops)));
    recorded[name] = digests;
    if (!REPIN) expect(digests).toEqual(pinned[name]);
  });
});

afterAll(() => {
  if (REPIN) writeFileSync(FIXTURE, `${JSON.stringify(recorded, null, 1)}\n`);
});
