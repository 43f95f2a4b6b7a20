// One list for each set of words (issue 43: "one registry per kind"), checked on every `npm run lint` by
// check-structure.mjs over the files it reads: a set of two or more words — a union of string literals, a zod
// enum, a `[…] as const` list, a constant's list or a Set of them — is written once in src/, named, and imported
// wherever it is needed. A second copy drifts from the first (runner names in five places, two interpreter
// lists, GATE OUT's status table beside the stop hook's). Keys picked from a type (`Pick<T, "a" | "b">`, `Omit`,
// `Extract`, `Exclude`) name existing words and are not lists of their own.
import ts from "typescript";

const PICKS = new Set(["Pick", "Omit", "Extract", "Exclude"]);

function literalWords(elements) {
  const words = elements.filter((e) => ts.isStringLiteral(e)).map((e) => e.text);
  return words.length >= 2 && words.length === elements.length ? words : null;
}

function insidePick(node) {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isTypeReferenceNode(at) && PICKS.has(at.typeName.getText())) return true;
  }
  return false;
}

/** The word lists one file writes out, each as its sorted words and the line it starts on. */
export function wordLists(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lists = [];
  const visit = (node) => {
    let words = null;
    if (ts.isUnionTypeNode(node) && !insidePick(node)) {
      const literals = node.types.filter((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal));
      if (literals.length >= 2) words = literals.map((t) => t.literal.text);
    } else if (ts.isAsExpression(node) && ts.isArrayLiteralExpression(node.expression)) {
      if (node.type.getText() === "const") words = literalWords(node.expression.elements);
    } else if (
      ts.isVariableDeclaration(node) &&
      node.initializer &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      words = literalWords(node.initializer.elements);
    } else if (ts.isNewExpression(node) && node.expression.getText() === "Set") {
      const [first] = node.arguments ?? [];
      if (first && ts.isArrayLiteralExpression(first)) words = literalWords(first.elements);
    } else if (ts.isCallExpression(node) && /\benum$/.test(node.expression.getText())) {
      const [first] = node.arguments;
      if (first && ts.isArrayLiteralExpression(first)) words = literalWords(first.elements);
    }
    if (words) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      lists.push({ key: [...new Set(words)].sort().join(" "), where: `${file}:${line}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lists;
}

/** Every set of words written out more than once, as `file:line: …` problems. */
export function vocabularyProblems(files) {
  const sites = new Map();
  for (const { file, text } of files) {
    for (const { key, where } of wordLists(file, text)) sites.set(key, [...(sites.get(key) ?? []), where]);
  }
  const problems = [];
  for (const [key, where] of sites) {
    if (where.length < 2) continue;
    const words = key
      .split(" ")
      .map((w) => `"${w}"`)
      .join(", ");
    problems.push(
      `${where[0]}: the words ${words} are listed again at ${where.slice(1).join(", ")}; name the list once (a const list, a zod enum or a type) and import it`,
    );
  }
  return problems;
}
