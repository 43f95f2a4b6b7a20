import { lstatSync, realpathSync, statSync } from "node:fs";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { isControlFile } from "../run/index.js";
import { type Gate, refuse, type VerifiedArtifact } from "./gate-types.js";

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/**
 * Every listed artifact must exist inside the task folder — by its path and, for symlinks, by what it
 * points at — and be at least `minArtifactBytes` long: a stub is not an artifact. A finished
 * operation must produce at least one.
 */
export const checkArtifacts: Gate = (ctx) => {
  const meta = ctx.metadata!;
  if (meta.artifacts.length === 0 && meta.status !== "partial") {
    return refuse(ctx, "ARTIFACT_NONE", `the agent reported ${meta.status} but listed no artifact`);
  }
  const folder = realpathSync.native(ctx.taskFolder);
  const verified: VerifiedArtifact[] = [];
  for (const artifact of meta.artifacts) {
    // Paths are repository-relative in the original format; absolute ones are accepted as they are.
    const path = isAbsolute(artifact.path) ? artifact.path : resolve(ctx.repoRoot, artifact.path);
    if (!isInside(resolve(ctx.taskFolder), path)) {
      return refuse(
        ctx,
        "ARTIFACT_OUTSIDE_TASK",
        `${artifact.path} is outside the task folder ${relative(ctx.repoRoot, ctx.taskFolder)}`,
      );
    }
    if (isControlFile(basename(path))) {
      return refuse(
        ctx,
        "ARTIFACT_CONTROL_FILE",
        `${artifact.path} is one of Baton's control files (return metadata, marker, loop guard or a temp file), never an artifact: list the report the agent wrote`,
      );
    }
    let bytes: number;
    try {
      lstatSync(path);
      const real = realpathSync.native(path);
      if (!isInside(folder, real)) {
        return refuse(
          ctx,
          "ARTIFACT_OUTSIDE_TASK",
          `${artifact.path} is a link to ${real}, outside the task folder`,
        );
      }
      const stat = statSync(real);
      if (!stat.isFile()) return refuse(ctx, "ARTIFACT_MISSING", `${artifact.path} is not a file`);
      bytes = stat.size;
    } catch {
      return refuse(ctx, "ARTIFACT_MISSING", `${artifact.path} does not exist`);
    }
    if (bytes === 0) return refuse(ctx, "ARTIFACT_EMPTY", `${artifact.path} is empty`);
    if (bytes < ctx.expected.minArtifactBytes) {
      return refuse(
        ctx,
        "ARTIFACT_TOO_SMALL",
        `${artifact.path} has ${bytes} bytes, below the minimum of ${ctx.expected.minArtifactBytes} (a stub, not a result)`,
      );
    }
    const entry: VerifiedArtifact = { type: artifact.type, path: relative(ctx.repoRoot, path), bytes };
    if (artifact.summary !== undefined) entry.summary = artifact.summary;
    verified.push(entry);
  }
  ctx.artifacts = verified;
  return { ok: true };
};
