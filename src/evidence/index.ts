/** Evidence: what each recorded result is made of, written with it, and `baton verify` over history. */
export {
  EVIDENCE_DIR,
  Evidence,
  type EvidenceInput,
  evidencePath,
  sha256Of,
  writeEvidence,
} from "./evidence-record.js";
export type { ChangeEvidence, CheckRun, VerifiedArtifact } from "./evidence-types.js";
export { type Completion, DONE_STATUSES, type VerifyReport, verifyHistory } from "./verify-history.js";
