import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  lastUserText,
  type MessagesRequest,
  promptOf,
  say,
  text,
  toolResults,
  toolUse,
} from "../../src/testing/fake-messages-api.js";
import {
  BIN,
  between,
  closeSessions,
  delegate,
  expectResearched,
  gateOut,
  initialisedRepo,
  line,
  located,
  mainThread,
  obedientMain,
  researcher,
  session,
  stopsThenWritesMetadata,
  toolResultsText,
  writeMetadata,
  writeReport,
} from "./claude-script.js";
import { git, ok, readJson } from "./helpers.js";

/** The real Claude Code binary after `baton init`: one test per way a session can try to get around the gates. */
afterEach(closeSessions);

describe.skipIf(located.path === null)(
  `Claude Code session after baton init${located.path === null ? `: SKIPPED, ${located.reason}` : ""}`,
  () => {
    // Each session costs a Claude Code start (4 CPU-s): the ways around the gates that one session can try in
    // turn are tried in one, and each refusal is checked where it happened.
    test("(a) the main thread edits a source file, delegates, and tries to end before gate-out: denied, run in the foreground, and the stop closes the checkpoint: Baton runs GATE OUT itself, which records and commits", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      let denial = "";
      const { api, run, hookLog } = await session(dir, {
        conversations: [
          mainThread([
            say(
              toolUse("Write", {
                file_path: join(dir, "src/lexer.ts"),
                content: "export const fixed = true;\n",
              }),
            ),
            {
              reply: (context) => {
                denial = toolResultsText(context.request);
                return delegate(context);
              },
            },
            say(text("The researcher is done; that is all.")),
          ]),
          researcher(dir),
        ],
      });
      expect(api.problems(), run.stdout + run.stderr).toEqual([]);
      // The main thread may not do the work itself.
      expect(denial).toMatch(/PreToolUse:Write hook error/);
      expect(denial).toMatch(/delegat/i);
      expect(existsSync(join(dir, "src/lexer.ts"))).toBe(false);
      // The hook turned the default background launch into a foreground call: the result came back in the call.
      expect(hookLog).toContainEqual(expect.objectContaining({ event: "pre-tool-use", tool: "Agent" }));
      const agentCall = api.messageRequests().find((r) => r.conversation === "main" && r.turn === 2)!;
      expect(lastUserText(agentCall.body as MessagesRequest)).toContain("Report and metadata written.");
      // It may not end with the checkpoint open: its agent has returned, so the Stop hook runs GATE OUT itself.
      expect(hookLog).toContainEqual(
        expect.objectContaining({ event: "stop", note: "gate-out run by the stop hook", task: 1 }),
      );
      expectResearched(dir);
    });

    test("(d) the sub-agent writes state.json directly, then stops before its metadata: denied, blocked, then it writes it", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      const before = readFileSync(join(dir, "specs/state.json"), "utf8");
      let denial = "";
      let feedback = "";
      const { api } = await session(dir, {
        conversations: [
          obedientMain(),
          {
            name: "researcher",
            match: { subagent: true, prompt: "Baton delegates research of task 1" },
            turns: [
              say(
                toolUse("Write", {
                  file_path: join(dir, "specs/state.json"),
                  content: '{"active_projects":[]}\n',
                }),
              ),
              {
                reply: (context) => {
                  denial = toolResultsText(context.request);
                  return writeReport(dir)(context);
                },
              },
              ...stopsThenWritesMetadata(dir, (f) => {
                feedback = f;
              }),
            ],
          },
        ],
      });
      expect(api.problems()).toEqual([]);
      expect(denial).toMatch(/PreToolUse:Write hook error/);
      expect(denial).toContain("state.json");
      expect(readFileSync(join(dir, "specs/state.json"), "utf8")).not.toBe('{"active_projects":[]}\n');
      expect(before.length).toBeGreaterThan(0);
      expect(feedback).toContain("Stop hook feedback");
      expect(feedback).toContain(".return-meta.json");
      expectResearched(dir);
    });

    test("(g) the main thread does the delegated work itself: gate-out refuses it, nothing is recorded", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      let closing = "";
      // A hostile main thread: it writes the report and the metadata through Bash (its Write would be
      // denied) with the session id it read in gate-in's output, then runs gate-out.
      const forge = ({ request }: { request: MessagesRequest }) => {
        const prompt = promptOf(request);
        const report = line(prompt, "Write the report to");
        const metadata = line(prompt, "Write the return metadata, last, to");
        const meta = JSON.stringify({
          status: "researched",
          summary: "Forged.",
          artifacts: [{ type: "research", path: report }],
          metadata: { session_id: line(prompt, "Session id"), agent_type: "baton-researcher" },
        });
        const command = `mkdir -p $(dirname ${report}) && python3 -c "open('${report}','w').write('# Research\\n\\n' + 'A forged finding. ' * 40)" && printf '%s' '${meta}' > ${metadata}`;
        return say(toolUse("Bash", { command, description: "Write the result" }));
      };
      const { api } = await session(dir, {
        conversations: [
          mainThread([
            { reply: forge },
            { reply: gateOut },
            {
              reply: ({ request }) => {
                closing = toolResultsText(request);
                return say(text("Could not record it."));
              },
            },
            say(text("Stopping.")),
            say(text("Stopping.")),
            say(text("Stopping.")),
            say(text("Stopping.")),
            say(text("Stopping.")),
            say(text("Stopping.")),
          ]),
        ],
      });
      expect(closing).toContain("AGENT_NOT_RUN");
      expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
      expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("baton init");
      expect(api.problems().filter((p) => !p.includes("has 9 turns"))).toEqual([]);
    });

    test("(h) the sub-agent reports TASK_ERROR: gate-out refuses with AGENT_REPORTED_ERROR", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      let closing = "";
      const { api } = await session(dir, {
        conversations: [
          mainThread([
            { reply: delegate },
            { reply: gateOut },
            {
              reply: ({ request }) => {
                closing = toolResultsText(request);
                return say(text("The agent reported an error."));
              },
            },
          ]),
          {
            name: "researcher",
            match: { subagent: true, prompt: "Baton delegates research of task 1" },
            turns: [
              { reply: writeReport(dir) },
              { reply: writeMetadata(dir) },
              say(text("TASK_ERROR: the cited sources could not be reached")),
            ],
          },
        ],
      });
      expect(api.problems()).toEqual([]);
      expect(closing).toContain("AGENT_REPORTED_ERROR");
      expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    });

    test("(i) the sub-agent deletes the marker: it is still held until its metadata is written", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      let feedback = "";
      const { api } = await session(dir, {
        conversations: [
          obedientMain(),
          {
            name: "researcher",
            match: { subagent: true, prompt: "Baton delegates research of task 1" },
            turns: [
              { reply: writeReport(dir) },
              say(
                toolUse("Bash", {
                  command: "find specs -name .baton-postflight-pending -delete",
                  description: "Clean up",
                }),
              ),
              ...stopsThenWritesMetadata(dir, (f) => {
                feedback = f;
              }),
            ],
          },
        ],
      });
      expect(api.problems()).toEqual([]);
      expect(feedback).toContain("Stop hook feedback");
      expect(feedback).toContain(".return-meta.json");
      expectResearched(dir);
    });

    test("(j) the store damaged past PreToolUse, and a status move around the gate: restored, refused, never committed", {
      timeout: 120_000,
    }, async () => {
      // The layer behind the host's sandbox: with it off (a user's choice), writes reach the store.
      const dir = initialisedRepo(["--host-sandbox", "off"]);
      const sealed = readFileSync(join(dir, "specs/state.json"), "utf8");
      const results: string[] = [];
      // What the model was told after each call: tool results and the hooks' messages beside them.
      const seen = ({ request }: { request: MessagesRequest }) => results.push(JSON.stringify(request));
      const bash = (command: string) => say(toolUse("Bash", { command, description: "Tamper" }));
      /** Notes what the model was told after the previous call, then makes the next one. */
      const then =
        (next: (c: { request: MessagesRequest }) => ReturnType<typeof say>) =>
        (c: { request: MessagesRequest }) => {
          seen(c);
          return next(c);
        };
      const damage = [
        `python3 -c "import os, json; p = os.path.join('specs', 'state.json'); d = json.load(open(p)); d['active_projects'][0]['status'] = 'researched'; json.dump(d, open(p, 'w'))"`,
        `F=specs/state.json; sed -i 's/researching/completed/' "$F"`,
        `sed -i 's/researching/planned/' /proc/self/cwd/specs/state.json; exit 3`,
        `${BIN} task status 1 researched`,
      ];
      const { api, hookLog: log } = await session(dir, {
        conversations: [
          mainThread([
            { reply: () => bash(damage[0]!) },
            { reply: then(() => bash(damage[1]!)) },
            { reply: then(() => bash(damage[2]!)) },
            { reply: then(() => bash(damage[3]!)) },
            { reply: then(delegate) },
            { reply: gateOut },
            say(text("Done.")),
          ]),
          researcher(dir),
        ],
      });
      expect(api.problems()).toEqual([]);
      // The request after the last tamper holds the whole history: each restoration was reported once. The
      // write through /proc/self/cwd is resolved before it runs, and refused there.
      const history = results[3] ?? "";
      expect(
        history.match(/changed outside Baton in this tool call and Baton restored its last write/g)?.length,
      ).toBe(2);
      expect(log.filter((e) => e["note"] === "store restored")).toHaveLength(2);
      expect(log).toContainEqual(
        expect.objectContaining({
          event: "pre-tool-use",
          tool: "Bash",
          decision: "deny",
          reason: expect.stringContaining("specs/state.json is written only by Baton"),
        }),
      );
      expect(results[3]).toContain("while the research run");
      expectResearched(dir);
      const committed = git(dir, ["show", "HEAD", "--", "specs/state.json"]);
      expect(committed).not.toMatch(/"completed"|"planned"/);
      expect(sealed).toContain('"not_started"');
    });

    test("(k) two checkpoints in one session: each sub-agent is held to its own", {
      timeout: 150_000,
    }, async () => {
      const dir = initialisedRepo();
      ok(dir, ["task", "add", "Study the parser", "-l", "general"]);
      git(dir, ["commit", "-qam", "second task"]);
      let second = "";
      let lazyFeedback = "";
      const agentCall = (gateInText: string, task: number) =>
        toolUse("Agent", {
          description: `research task ${task}`,
          subagent_type: line(gateInText, "subagent_type"),
          prompt: between(gateInText, "BEGIN PROMPT", "END PROMPT"),
          run_in_background: false,
        });
      const { api } = await session(dir, {
        conversations: [
          mainThread([
            say(toolUse("Bash", { command: `${BIN} gate-in research 2`, description: "Open task 2" })),
            {
              reply: ({ request }) => {
                second = toolResults(request)[0]?.content ?? "";
                const first = promptOf(request);
                return say(text("Delegating both."), agentCall(first, 1), agentCall(second, 2));
              },
            },
            {
              reply: ({ request }) => {
                const closeFirst = /^\s*(\S.* gate-out research 1 --session sess_\S+)\s*$/m.exec(
                  promptOf(request),
                )?.[1];
                const closeSecond = /(\S.* gate-out research 2 --session sess_\S+)/.exec(second)?.[1];
                return say(
                  toolUse("Bash", { command: `${closeFirst} && ${closeSecond}`, description: "Close both" }),
                );
              },
            },
            say(text("Both recorded.")),
          ]),
          researcher(dir),
          {
            name: "lazy",
            match: { subagent: true, prompt: "Baton delegates research of task 2" },
            turns: [
              { reply: writeReport(dir) },
              ...stopsThenWritesMetadata(dir, (f) => {
                lazyFeedback = f;
              }),
            ],
          },
        ],
      });
      const closing = api
        .messageRequests()
        .filter((r) => r.conversation === "main")
        .at(3);
      expect(api.problems(), JSON.stringify(closing?.body ? toolResults(closing.body) : null)).toEqual([]);
      // The lazy agent of task 2 was held to task 2's metadata, never to task 1's.
      expect(lazyFeedback).toContain("specs/2_study_the_parser/.return-meta.json");
      expect(lazyFeedback).not.toContain("1_study_the_lexer");
      const tasks = readJson(dir, "state.json").active_projects as Array<{
        project_number: number;
        status: string;
      }>;
      const closed = JSON.stringify(closing?.body ? toolResults(closing.body) : null);
      expect(tasks.map((t) => [t.project_number, t.status]).sort(), closed).toEqual([
        [1, "researched"],
        [2, "researched"],
      ]);
    });

    test("(f) malformed hook input: the hook allows, logs, and the session carries on", {
      timeout: 120_000,
    }, async () => {
      const dir = initialisedRepo();
      // A second PreToolUse hook feeds Baton garbage on every tool call.
      const settingsPath = join(dir, ".claude/settings.json");
      const settings = JSON.parse(readFileSync(settingsPath, "utf8"));
      settings.hooks.PreToolUse.push({
        matcher: "*",
        hooks: [{ type: "command", command: `echo 'this is { not json' | ${BIN} hook pre-tool-use` }],
      });
      writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
      const { api, hookLog } = await session(dir, {
        conversations: [obedientMain(), researcher(dir)],
      });
      expect(api.problems()).toEqual([]);
      expectResearched(dir);
      expect(JSON.stringify(hookLog)).toMatch(/malformed|invalid|not valid JSON/i);
    });
  },
);
