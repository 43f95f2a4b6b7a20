/** Evidence: what each recorded result is made of, written with it, and `baton verify` over history. */

export {
  type CommitObject,
  claimsBaton,
  readCommits,
  SEAL_TRAILER,
  sealedBy,
  sealedMessage,
  sealKeys,
  sessionOf,
} from "./commit-seal.js";
export {
  EVIDENCE_DIR,
  Evidence,
  type EvidenceInput,
  type EvidenceResult,
  type EvidenceSubject,
  evidencePath,
  publishedKeyPath,
  restateEvidence,
  type StoredFile,
  sha256Of,
  signedBytes,
  writeEvidence,
} from "./evidence-record.js";
export type { ChangeEvidence, CheckRun, TestCounts, VerifiedArtifact } from "./evidence-types.js";
export { approvalEvidenceProblem } from "./judge-approval.js";
export { commitChanges, headCommitChanges } from "./judge-completion.js";
export { type KeyTrust, keyTrust, makeVouch, type Vouch } from "./key-trust.js";
export {
  canonicalJson,
  fingerprintOf,
  type Signature,
  type SigningKey,
  signatureValid,
  signBytes,
  signingKey,
} from "./signing.js";
export { ACCEPTS_TRAILER, type UnsealedClaim, unsealedClaims } from "./unsealed-commits.js";
export {
  type Completion,
  DONE_STATUSES,
  forgedClaims,
  type VerifyReport,
  verifyHistory,
} from "./verify-history.js";
