import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { formatIssues } from "../../shared/index.js";
import { type Gate, refuse } from "./gate-types.js";
import { ReturnMetadata } from "./return-metadata.js";

/** The metadata file must exist, parse, and have the return-metadata shape. */
export const readReturnMetadata: Gate = (ctx) => {
  const shown = relative(ctx.repoRoot, ctx.metadataPath);
  let text: string;
  try {
    text = readFileSync(ctx.metadataPath, "utf8");
  } catch {
    return refuse(ctx, "META_MISSING", `the agent wrote no return metadata (${shown} does not exist)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return refuse(ctx, "META_INVALID_JSON", `${shown} is not valid JSON (${(error as Error).message})`);
  }
  const parsed = ReturnMetadata.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    return refuse(
      ctx,
      "META_SCHEMA",
      `${shown} does not match the return-metadata schema: ${formatIssues(parsed.error.issues)}`,
    );
  }
  ctx.metadata = parsed.data;
  return { ok: true };
};
