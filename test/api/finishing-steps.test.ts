import { describe, expect, it } from "vitest";
import { finishingLine } from "../../src/api/finishing-steps.js";

describe("the last steps of shrinking on real servers, as a line", () => {
  it("names each step that made a candidate, whether it was kept and how its runs went", () => {
    expect(
      finishingLine([
        { step: "start races settled", kept: true, failed: 2, runs: 2 },
        { step: "faults aimed", kept: false, failed: 1, runs: 2 },
      ]),
    ).toBe(
      "last steps on real servers: start races settled (kept: failed 2 of 2), timed faults aimed at checkpoints (not kept: failed 1 of 2)",
    );
    expect(
      finishingLine([
        { step: "replays", kept: false, failed: 1, runs: 3 },
        { step: "stepped back", kept: true, failed: 3, runs: 3 },
      ]),
    ).toBe(
      "last steps on real servers: fresh replays (failed 1 of 3), a larger schedule kept before it, replayed (kept: failed 3 of 3)",
    );
    expect(
      finishingLine([
        { step: "start races settled", kept: true, failed: 2, runs: 2 },
        { step: "faults aimed", skipped: "time limit" },
        { step: "replays", skipped: "time limit" },
      ]),
    ).toBe(
      "last steps on real servers: start races settled (kept: failed 2 of 2); no time left in the limit for: timed faults aimed at checkpoints, fresh replays",
    );
    expect(finishingLine([{ step: "replays", skipped: "time limit" }])).toBe(
      "last steps on real servers: no time left in the limit for: fresh replays",
    );
    expect(finishingLine([])).toBeNull();
  });
});
