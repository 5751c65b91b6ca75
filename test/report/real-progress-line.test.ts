import { describe, expect, it } from "vitest";
import { activeFaultsText, realProgressLine } from "../../src/report/real-progress-line.js";

describe("the progress line of a run on real servers", () => {
  it("names overlapping faults alike once, with how many, in the order they began", () => {
    const both = "partition client:1|server:0,server:1,server:2";
    expect(activeFaultsText([both, "pause client:0", both])).toBe(`${both} ×2, pause client:0`);
    expect(activeFaultsText(["pause client:0", "pause client:1"])).toBe("pause client:0, pause client:1");
    expect(activeFaultsText([])).toBe("none");
  });

  it("says how far the run is and what has begun", () => {
    const line = realProgressLine({
      elapsedMs: 4_400,
      events: 52,
      faultsBegun: 3,
      faults: 10,
      activeFaults: ["partition client:1|server:0", "partition client:1|server:0"],
    });
    expect(line).toBe("    4s  52 events  faults: 3 of 10 begun, active: partition client:1|server:0 ×2");
  });
});
