// Prints the plain closing line CI reads ("N passed, N failed") from vitest's JSON report,
// and fails when no test ran at all.
import { readFileSync } from "node:fs";

const file = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
  console.error(`no vitest report at ${file}: ${e.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// numFailedTestSuites counts every describe block around a failed test too; add only the
// files that failed with no failed test in them (a file that did not load).
const filesFailedOutsideTests = (report.testResults ?? []).filter(
  (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
).length;
const failed = (report.numFailedTests ?? 0) + filesFailedOutsideTests;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) {
  console.error("no test ran");
  process.exit(1);
}
