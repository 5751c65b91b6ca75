/** The data types the front ends read: verdicts, schedules, histories (declared below, re-exported once here). */
export type { Anomaly, StatValue, Validity, Verdict } from "../checkers/verdict.js";
export type { Op } from "../history/op.js";
export type { Fault, PartitionMode, ResourceMode, Schedule } from "../schedule/schedule.js";
