import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInputError } from "../../src/result.js";
import { loadSchedule, parseScheduleText } from "../../src/schedule/load.js";
import { scheduleFor } from "./schedules.js";

const valid = scheduleFor("sim:lease", {
  resource: "unfenced",
  clients: [[{ thinkMs: 0, holdMs: 10, writes: 1 }]],
  faults: [{ kind: "pause", node: "client:0", at: 5, durationMs: 100 }],
});

function withFault(fault: unknown) {
  return JSON.stringify({ ...valid, faults: [valid.faults[0], fault] }, null, 2);
}

describe("loadSchedule", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockcheck-load-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loads a valid schedule", async () => {
    const path = join(dir, "ok.json");
    await writeFile(path, JSON.stringify(valid));
    expect(await loadSchedule(path)).toEqual({ ok: true, value: valid });
  });

  it("names the file and the JSON path of a bad field", async () => {
    const path = join(dir, "bad.json");
    await writeFile(path, withFault({ kind: "pause", node: "client:0", at: 5, durationMs: 0 }));
    const r = await loadSchedule(path);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatInputError(r.error)).toBe(`${path}: faults[1].durationMs: expected a positive integer`);
  });

  it("phrases the usual mistakes for people", () => {
    const cases: Array<[string, string]> = [
      [
        withFault({ kind: "pause", node: "client:0", at: -1, durationMs: 1 }),
        "faults[1].at: expected a non-negative integer",
      ],
      [
        withFault({ kind: "pause", node: "client:0", at: 1.5, durationMs: 1 }),
        "faults[1].at: expected an integer",
      ],
      [
        withFault({ kind: "pause", node: "host:1", at: 1, durationMs: 1 }),
        "faults[1].node: expected client:N, server:N, server:leader or resource",
      ],
      [withFault({ kind: "gc", node: "client:0" }), 'faults[1].kind: unknown kind; expected one of "pause"'],
      [
        withFault({ kind: "pause", node: "client:0", at: 1, durationMs: 1, extra: true }),
        'faults[1]: unknown field "extra"',
      ],
      [
        JSON.stringify({ ...valid, resource: "locked" }),
        'resource: expected one of "unfenced", "fenced", "fenced-txn"',
      ],
      [
        JSON.stringify({ ...valid, options: { ...valid.options, lossRate: 2 } }),
        "options.lossRate: expected a number <= 1",
      ],
      [JSON.stringify({ ...valid, clients: [] }), "clients: expected at least 1 item(s)"],
    ];
    for (const [text, expected] of cases) {
      const r = parseScheduleText(text, "s.json");
      expect(r.ok).toBe(false);
      if (!r.ok) expect(formatInputError(r.error)).toContain(`s.json: ${expected}`);
    }
  });

  it("reports a JSON syntax error (with its line when Node gives a position), and a missing file", async () => {
    const r = parseScheduleText('{\n  "version": 1,\n  "target": "x",\n}', "s.json");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.file).toBe("s.json");
      expect(r.error.message).toMatch(/^not valid JSON/);
      if (r.error.line !== undefined) expect(r.error.line).toBe(4);
    }
    const missing = await loadSchedule(join(dir, "nope.json"));
    expect(missing).toEqual({ ok: false, error: { file: join(dir, "nope.json"), message: "no such file" } });
  });
});
