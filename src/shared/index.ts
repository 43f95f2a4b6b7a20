export * from "./atomic-write.js";
export * from "./errors.js";
export {
  isCanonical,
  type JsonDocument,
  parseJsonDocument,
  renderJsonDocument,
  stringifyJson,
} from "./json-document.js";
export * from "./time.js";
export { describeIssue, formatIssues } from "./zod-format.js";
