export * from "./atomic-write.js";
export { EditableLines } from "./editable-lines.js";
export * from "./errors.js";
export * from "./hook-port.js";
export {
  isCanonical,
  isCanonicalValue,
  type JsonDocument,
  parseJsonDocument,
  renderJsonDocument,
  stringifyJson,
} from "./json-document.js";
export { jsonLineFinder, lineOfJsonPath } from "./json-location.js";
export { lineIndex } from "./lines.js";
export { gitWorkTree, requireRepository } from "./repository.js";
export * from "./time.js";
export { describeIssue, formatIssues, validationIssues } from "./zod-format.js";
