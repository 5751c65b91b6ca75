/**
 * The JSONL history format, one op per line (see op.ts for the model). This module is the
 * public entry point; each concern lives in its own file.
 */
export { type LineBatch, readLineBatches } from "./lines.js";
export { parseOpLine } from "./parse.js";
export { type HistoryStream, type ReadHistoryOptions, readHistory, readHistoryFile } from "./read.js";
export { serializeOp, tokenToJson } from "./serialize.js";
export { createHistoryValidator, type HistoryValidator } from "./validate.js";
export { type HistoryWriter, openHistoryWriter, writeHistory } from "./write.js";
