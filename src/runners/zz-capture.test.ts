import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { runProcess } from "../shared/process.js";
import { claudeOfflineEnv, findClaudeBinary } from "../testing/claude-binary.js";
import { say, startFakeMessagesApi, text } from "../testing/fake-messages-api.js";

test("stdin prompt", { timeout: 60000 }, async () => {
  const repo = mkdtempSync(join(tmpdir(), "cap-"));
  const cfg = mkdtempSync(join(tmpdir(), "capcfg-"));
  const api = await startFakeMessagesApi({ conversations: [{ turns: [say(text("Done."))] }] });
  const big = `STDIN-PROMPT ${"x".repeat(150_000)} END`;
  const r = await runProcess({
    command: findClaudeBinary(),
    args: ["-p", "--output-format", "stream-json", "--verbose"],
    stdin: big,
    cwd: repo,
    env: claudeOfflineEnv(api.url, cfg),
    timeoutMs: 30000,
  });
  console.log(r.ok, r.stderr.slice(0, 300), r.stdout.slice(-300));
  console.log(api.messageRequests().map((q) => [q.prompt.slice(0, 20), q.prompt.length]));
  await api.close();
  expect(r.ok).toBe(true);
});
