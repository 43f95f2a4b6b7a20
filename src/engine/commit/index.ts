/** COMMIT: Baton's commit through an index of its own, sealed, on the HEAD it lands on. */
export { commitAcceptance } from "./accept-commits.js";
export { closeCheckpoint } from "./close-checkpoint.js";
export { commitOperation, publishedKey, storeFiles } from "./commit-operation.js";
export { commitTaskChanges, sessionCommitSubjects } from "./git-commit.js";
export { sealedCommit } from "./sealed-commit.js";
