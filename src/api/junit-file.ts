/** Writing JUnit XML for CI (`lockcheck gate --junit`, `lockcheck merge --junit`). */
import { writeFile } from "node:fs/promises";
import type { JUnitSuite } from "../report/junit.js";
import { err, type InputError, ok, type Result } from "../result.js";

export async function writeJUnitFile(
  file: string,
  suites: readonly JUnitSuite[],
  name: string,
): Promise<Result<void, InputError>> {
  try {
    // Loaded on demand: most runs write no JUnit.
    const { renderJUnit } = await import("../report/junit.js");
    await writeFile(file, renderJUnit(suites, name), "utf8");
    return ok(undefined);
  } catch (e) {
    return err({ file, message: `cannot write: ${(e as Error).message}` });
  }
}
