// The layering of docs/architecture.md, checked on every `npm run lint` against the code's own imports
// (import-graph.mjs): which domain may import which, every domain entered through its index.ts, the engine's
// folders in pipeline order, and no two files of src/ importing each other in a loop. A new dependency is a
// line in a table below, where a reviewer sees it; `node scripts/architecture.mjs` prints the counts.
import { circles, domainOf, readImports, roomOf } from "./import-graph.mjs";

/** Which domains each domain may import (besides itself). `cli` and src/index.ts, the two outer faces, take any. */
export const DOMAIN_IMPORTS = {
  shared: [],
  config: ["shared"],
  state: ["config", "shared"],
  plan: ["shared"],
  runners: ["shared"],
  agents: ["config", "runners", "shared", "state"],
  approvals: ["config", "plan", "shared", "state"],
  evidence: ["approvals", "config", "plan", "runners", "shared", "state"],
  status: ["shared", "state"],
  init: ["shared", "state"],
  lint: ["config", "shared", "state"],
  hooks: ["config", "hosts", "shared", "state"],
  engine: ["agents", "approvals", "config", "evidence", "plan", "runners", "shared", "state", "status"],
  hosts: ["agents", "init", "lint", "shared", "state"],
  batch: ["approvals", "config", "engine", "hosts", "runners", "shared", "state"],
  mcp: ["approvals", "config", "engine", "shared", "state"],
  ui: ["approvals", "config", "engine", "plan", "shared", "state", "status"],
  testing: ["config", "hooks", "plan", "runners", "shared", "state"],
};
const OUTER = new Set(["cli", ""]);

/**
 * Domains without one face. shared/ is a toolbox of independent modules, each its own face: measured with one
 * barrel, esbuild's code splitting put everything the barrel reaches into each entry's start-up chunks (the
 * CLI's 255 KB → 555 KB, the fast read path's 67 KB → 426 KB, a hook's 297 KB → 641 KB).
 */
export const FACELESS = new Set(["shared"]);

/** engine/'s rooms, floor by floor from the ground: a room imports only rooms on floors below its own. */
export const ENGINE_FLOORS = [
  ["run"],
  ["gate-in", "gate-out"],
  ["commit", "transition"],
  ["plan-run", "approval"],
  ["recovery", "progress-event"],
  ["delegate", "event-recorder"],
  ["drive"],
  ["run-modes"],
  ["index"],
];

function checkDomainTable(problems) {
  const seen = new Set();
  const visiting = new Set();
  const visit = (domain, path) => {
    if (visiting.has(domain)) problems.push(`DOMAIN_IMPORTS loops: ${[...path, domain].join(" → ")}`);
    if (seen.has(domain) || visiting.has(domain)) return;
    visiting.add(domain);
    for (const next of DOMAIN_IMPORTS[domain] ?? []) visit(next, [...path, domain]);
    visiting.delete(domain);
    seen.add(domain);
  };
  for (const domain of Object.keys(DOMAIN_IMPORTS)) visit(domain, []);
}

function checkDomains(imports, problems) {
  for (const i of imports) {
    const from = domainOf(i.from);
    const to = domainOf(i.to);
    if (from === to) continue;
    const where = `${i.from}:${i.startLine}`;
    if (!OUTER.has(from)) {
      const allowed = DOMAIN_IMPORTS[from];
      if (allowed === undefined)
        problems.push(`${where}: domain "${from}" is not in DOMAIN_IMPORTS; add it there`);
      else if (!allowed.includes(to))
        problems.push(
          `${where}: ${from}/ imports ${to}/, which DOMAIN_IMPORTS does not allow (dependencies point one way: docs/architecture.md)`,
        );
    }
    if (!FACELESS.has(to) && i.to !== `src/${to}/index.ts` && i.sideDoor === undefined)
      problems.push(
        `${where}: imports ${i.to} past src/${to}/index.ts; import it from the domain's index.ts, or say why above the import (\`// side door: why\`)`,
      );
  }
}

function engineFloor(file) {
  const room = roomOf(file);
  const floor = ENGINE_FLOORS.findIndex((rooms) => rooms.includes(room));
  return { room, floor };
}

function checkEngine(imports, problems) {
  for (const i of imports) {
    if (!i.from.startsWith("src/engine/") || !i.to.startsWith("src/engine/")) continue;
    const from = engineFloor(i.from);
    const to = engineFloor(i.to);
    if (from.room === to.room) continue;
    const where = `${i.from}:${i.startLine}`;
    for (const { room, floor } of [from, to])
      if (floor < 0) problems.push(`${where}: engine/${room} has no floor in ENGINE_FLOORS; place it there`);
    if (from.floor >= 0 && to.floor >= 0 && to.floor >= from.floor)
      problems.push(
        `${where}: engine/${from.room} imports engine/${to.room}, which is not on a floor below it (ENGINE_FLOORS)`,
      );
    const isFolder = i.to.split("/").length > 3;
    if (isFolder && !i.to.endsWith("/index.ts"))
      problems.push(
        `${where}: imports ${i.to}, inside engine/${to.room}; import it from engine/${to.room}/index.ts`,
      );
  }
}

/** Every broken rule, as `file:line: what and what to do`. */
export function architectureProblems(imports = readImports()) {
  const problems = [];
  checkDomainTable(problems);
  checkDomains(imports, problems);
  checkEngine(imports, problems);
  for (const loop of circles(imports))
    problems.push(`files import each other in a loop: ${loop.join(" ↔ ")}`);
  return problems;
}

/** The figures docs/architecture.md and a review quote: imports across domains, past a face, and so on. */
export function architectureCounts(imports = readImports()) {
  const across = imports.filter((i) => domainOf(i.from) !== domainOf(i.to));
  const faced = across.filter((i) => !FACELESS.has(domainOf(i.to)));
  const engine = imports.filter(
    (i) =>
      i.from.startsWith("src/engine/") && i.to.startsWith("src/engine/") && roomOf(i.from) !== roomOf(i.to),
  );
  return {
    imports: imports.length,
    acrossDomains: across.length,
    intoFacedDomains: faced.length,
    pastTheFace: faced.filter((i) => i.to !== `src/${domainOf(i.to)}/index.ts`).length,
    pastTheFaceUnexplained: faced.filter((i) => i.to !== `src/${domainOf(i.to)}/index.ts` && !i.sideDoor)
      .length,
    engineArrowsBackUp: engine.filter((i) => engineFloor(i.to).floor >= engineFloor(i.from).floor).length,
    circles: circles(imports).length,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes("--counts")) {
    console.log(JSON.stringify(architectureCounts(), null, 2));
    process.exit(0);
  }
  const problems = architectureProblems();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exit(1);
  console.log("check-architecture: every import follows docs/architecture.md");
}
