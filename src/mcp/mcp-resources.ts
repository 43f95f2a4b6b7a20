import { readFileSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { currentPlan } from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { readSettledStore, storeContext, taskFolderPath } from "../state/index.js";

/** The file a recorded path names, resolved through links; null unless it lies inside the repository. */
function insideRepository(root: string, path: string): string | null {
  try {
    const real = realpathSync(join(root, path));
    const top = realpathSync(root);
    return real.startsWith(`${top}${sep}`) ? real : null;
  } catch {
    return null;
  }
}

/** A task's current plan and its artifacts, readable as resources (`baton://task/12/plan`). */
export function registerResources(server: McpServer, config: BatonConfig): void {
  const ctx = storeContext(config);
  const task = async (n: string) =>
    (await readSettledStore(ctx)).state.tasks.find((t) => t.project_number === Number(n)) ?? null;
  const listPlans = async () => ({
    resources: (await readSettledStore(ctx)).state.tasks
      .filter((t) => (t.artifacts ?? []).some((a) => (a as { type?: string }).type === "plan"))
      .map((t) => ({
        uri: `baton://task/${t.project_number}/plan`,
        name: `task ${t.project_number}'s plan`,
        mimeType: "text/markdown",
      })),
  });
  server.registerResource(
    "plan",
    new ResourceTemplate("baton://task/{task}/plan", { list: listPlans }),
    { description: "A task's current implementation plan (Markdown)", mimeType: "text/markdown" },
    async (uri, { task: n }) => {
      const entry = await task(String(n));
      const folder = entry ? taskFolderPath(ctx.paths.dir, entry, config.artifactNaming) : null;
      const plan = entry && folder ? currentPlan(config, entry, folder) : null;
      if (!plan) throw new Error(`task ${String(n)} has no plan`);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: plan.text }] };
    },
  );
  server.registerResource(
    "artifact",
    new ResourceTemplate("baton://task/{task}/artifact/{index}", { list: undefined }),
    {
      description: "A task's artifact by its place in the task's list (reports, plans, summaries)",
      mimeType: "text/markdown",
    },
    async (uri, { task: n, index }) => {
      const entry = await task(String(n));
      const artifact = (entry?.artifacts ?? [])[Number(index)] as { path?: string } | undefined;
      const path = artifact?.path ? insideRepository(config.root, artifact.path) : null;
      if (!path) throw new Error(`task ${String(n)} has no artifact ${String(index)} inside the repository`);
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: readFileSync(path, "utf8") }] };
    },
  );
}
