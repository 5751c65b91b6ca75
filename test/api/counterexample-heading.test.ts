import { describe, expect, it } from "vitest";
import { counterexampleHeading } from "../../src/api/counterexample-heading.js";

describe("counterexampleHeading", () => {
  it("calls a counterexample minimal only when shrinking ended on its own", () => {
    expect(counterexampleHeading("margins", false)).toBe("minimal counterexample:");
    expect(counterexampleHeading("real", undefined)).toBe("minimal counterexample:");
  });

  it("says a shrink that stopped at its budget may not be minimal", () => {
    const h = counterexampleHeading("real", true);
    expect(h).not.toContain("minimal counterexample");
    expect(h).toContain("stopped at its budget");
  });

  it("says a schedule that was not shrunk is as found, budget or not", () => {
    expect(counterexampleHeading("off", false)).toBe("counterexample (as found):");
    expect(counterexampleHeading("not-kept", true)).toBe("counterexample (as found):");
  });
});
