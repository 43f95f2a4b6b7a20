export * from "./atomic-write.js";
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
export * from "./time.js";
export { describeIssue, formatIssues, validationIssues } from "./zod-format.js";
