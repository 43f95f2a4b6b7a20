import { describe, expect, it } from "vitest";
import { findBashWrite } from "./bash-writes.js";
import type { Project } from "./project.js";
import { lex } from "./shell-lexer.js";

const project: Project = { root: "/repo", specsDir: "/repo/specs" };
const write = (command: string, cwd = "/repo") => findBashWrite(command, cwd, project);

describe("findBashWrite", () => {
  it.each([
    ["echo '{}' > specs/state.json", "state"],
    [
      "jq '.next_project_number = 9' specs/state.json > specs/state.json.tmp && mv specs/state.json.tmp specs/state.json",
      "state",
    ],
    ["cat x >> specs/TODO.md", "todo"],
    ["echo x>specs/TODO.md", "todo"],
    ["printf x 2>/dev/null 1> specs/errors.json", "errors"],
    ["echo x &> specs/archive/state.json", "archive"],
    ["sed -i 's/RESEARCHING/RESEARCHED/' specs/TODO.md", "todo"],
    ["sed -i.bak -e 's/a/b/' specs/state.json", "state"],
    ["perl -pi -e 's/a/b/' specs/TODO.md", "todo"],
    ["jq . specs/state.json | tee specs/state.json", "state"],
    ["jq . x | sponge specs/state.json", "state"],
    ["cp /tmp/state.json specs/state.json", "state"],
    ["mv specs/state.json /tmp/old.json", "state"],
    ["rm -f specs/12_task/.baton-postflight-pending", "marker"],
    ["touch specs/12_task/.baton-postflight-loop-guard", "marker"],
    ["rm specs/.baton/checkpoints/12.json", "internal"],
    ["cd specs && echo x > state.json", "state"],
    ['echo x > "$CLAUDE_PROJECT_DIR/specs/state.json"', "state"],
    ["sudo tee -a specs/TODO.md < x", "todo"],
    ["git checkout -- specs/state.json", "state"],
    ["dd if=/dev/zero of=specs/errors.json", "errors"],
    [
      `python3 -c "import json; d=json.load(open('specs/state.json')); json.dump(d, open('specs/state.json','w'))"`,
      "state",
    ],
    [`node -e "require('fs').writeFileSync('specs/TODO.md', '')"`, "todo"],
    ["python3 - <<'EOF'\nopen('specs/state.json', 'w').write('{}')\nEOF", "state"],
    ["rm -rf .baton/state", "hook-data"],
    [`python3 -c "f = open( 'specs/state.json' , 'a' ); f.write('x')"`, "state"],
    [`python3 -c "print(1)" && python3 -c "open('./specs/TODO.md', "w")"`, "todo"],
  ])("denies %s", (command, kind) => {
    expect(write(command)?.file.kind).toBe(kind);
  });

  it("resolves paths against the shell's folder", () => {
    expect(write("echo x > state.json", "/repo/specs")?.file.kind).toBe("state");
    expect(write("echo x > ../state.json", "/repo/specs/archive")?.file.kind).toBe("state");
  });

  it.each([
    "cat specs/state.json",
    "jq . specs/state.json",
    "jq '.active_projects[] | select(.status==\"planned\")' specs/state.json > /tmp/planned.json",
    "grep -n RESEARCHED specs/TODO.md",
    "git diff specs/state.json specs/TODO.md",
    "git add specs/state.json && git commit -m 'task 5: research'",
    "cp specs/state.json /tmp/backup.json",
    'echo "do not write > specs/state.json by hand"',
    "cat > notes.md <<EOF\nnever run: echo x > specs/state.json\nEOF",
    "python3 -c \"import json; print(json.load(open('specs/state.json'))['next_project_number'])\"",
    "node -e \"console.log(JSON.parse(require('fs').readFileSync('specs/state.json','utf8')).active_projects.length)\"",
    "ls specs/.baton/checkpoints",
    "cat specs/12_task/.baton-postflight-pending",
    "echo x > src/fixtures/state.json",
    "jq . specs/state.json 2>&1 | head",
    "baton task status 5 researched",
    "npm test > /tmp/out.log 2>&1",
    "sed -n 1,20p specs/TODO.md",
    "diff <(jq -S . specs/state.json) <(jq -S . /tmp/s.json)",
    `python3 -c "print(open('specs/state.json').read()); print('w')"`,
  ])("allows %s", (command) => {
    expect(write(command)).toBeNull();
  });
});

describe("lex", () => {
  it("splits simple commands and keeps quoted operators inside words", () => {
    const { segments } = lex("a 'x > y' | b \"c;d\" && e 2>&1 >> out");
    expect(segments).toEqual([
      [{ word: "a" }, { word: "x > y" }],
      [{ word: "b" }, { word: "c;d" }],
      [{ word: "e" }, { redirect: ">&", target: "1" }, { redirect: ">>", target: "out" }],
    ]);
  });
});
