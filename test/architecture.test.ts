/**
 * The provider keeps no module-level mutable state: what a process knows lives in its context
 * (the host's `ProviderContext`, a program run's memory), passed to whoever needs it. This test reads
 * every source file outside the emulator (which is a server with state by design) and fails on a
 * top-level `let` or `var`, and on a top-level `const` holding a container that is changed: a
 * `Map`, `Set`, `WeakMap` or `WeakSet` (unless typed `ReadonlyMap`/`ReadonlySet`), or an array or
 * object literal the file assigns into or pushes onto. Import boundaries are dependency-cruiser's
 * (`npm run lint`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.join(__dirname, "..", "src");

/**
 * The module-level state that stays, by `file: name`, and why (see docs/architecture.md).
 */
const ALLOWED: Record<string, string> = {
  // The host's one context slot: the dynamic-provider interface hands its methods no context.
  "host/provider-runtime.ts: processContext": "set by configure; read by the provider objects providerOf builds",
  // The compile cache is the process's, as node's own: what of it this host wrote (host-start turns it on, every method writes).
  "host/host-end.ts: cacheWrites": "process-wide, as node's compile cache is",
  // A program run's memory, keyed by the run's resource monitor (Pulumi hands a program no context object).
  "program/program-run.ts: runs": "per program run, goes with it",
  // A memo of an immutable value: zod and the schemas load on first use, not when a program imports the package.
  "client/schemas.ts: built": "immutable once built",
  // Likewise: undici's parts, loaded with the first connection.
  "client/transport.ts: loaded": "immutable once loaded",
  // Likewise: the settings' zod schemas, built on the first check of the settings.
  "client/settings.ts: fieldsBuilt": "immutable once built",
  "shared/settings.ts: schemaBuilt": "immutable once built",
};

/** Every .ts file under src, outside the emulator, relative to src. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === path.join(SRC, "emulator") ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") ? [path.relative(SRC, full).split(path.sep).join("/")] : [];
  });
}

const CONTAINERS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);
const READONLY = /^Readonly(Map|Set|Array)\b|^readonly /;

/** Whether the file changes `name`: assigns into it, or calls a mutating array method on it. */
function mutates(text: string, name: string): boolean {
  const escaped = name.replace(/[$]/g, "\\$");
  return new RegExp(
    `\\b${escaped}(\\.\\w+|\\[[^\\]]*\\])\\s*(=(?!=)|\\+=|-=)|\\b${escaped}\\.(push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin)\\(|delete ${escaped}\\b`,
  ).test(text);
}

/** The module-level mutable state of one file, as `file: name`. */
function mutableState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (!isConst) {
        found.push(`${file}: ${name}`);
        continue;
      }
      let init = declaration.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) {
        if (ts.isAsExpression(init) && init.type.getText(source) === "const") break;
        init = init.expression;
      }
      if (!init || (declaration.type && READONLY.test(declaration.type.getText(source)))) continue;
      const container = ts.isNewExpression(init) && CONTAINERS.has(init.expression.getText(source));
      const literal = ts.isArrayLiteralExpression(init) || ts.isObjectLiteralExpression(init);
      if (container || (literal && mutates(text, name))) found.push(`${file}: ${name}`);
    }
  }
  return found;
}

describe("no module-level mutable state outside the emulator", () => {
  it("finds none but the state allowed, each entry with its reason", () => {
    const found = sourceFiles().flatMap((file) => mutableState(file, readFileSync(path.join(SRC, file), "utf8")));
    expect(found.filter((entry) => !(entry in ALLOWED))).toEqual([]);
    // An entry whose state is gone is removed from the list, so the list never grows stale.
    expect(Object.keys(ALLOWED).filter((entry) => !found.includes(entry))).toEqual([]);
  });

  it.each([
    ["let current: string | undefined;", ["x.ts: current"]],
    ["const cache = new Map<string, number>();", ["x.ts: cache"]],
    ["const seen: ReadonlySet<string> = new Set(['a']);", []],
    ["const list: string[] = []; export function add(x: string) { list.push(x); }", ["x.ts: list"]],
    ["const table = { a: 1 }; export function set() { table.a = 2; }", ["x.ts: table"]],
    ["const KEYS = ['a', 'b'] as const;", []],
    ["export function f() { let i = 0; const m = new Map(); return [i, m]; }", []],
  ])("tells state from constants: %s", (text, expected) => {
    expect(mutableState("x.ts", text)).toEqual(expected);
  });
});

describe("no src line outside the emulator is over 160 characters", () => {
  it("finds none (long messages live in a resource's messages module, built from lines that fit)", () => {
    const long = sourceFiles().flatMap((file) =>
      readFileSync(path.join(SRC, file), "utf8")
        .split("\n")
        .flatMap((line, index) => (line.length > 160 ? [`${file}:${index + 1} (${line.length})`] : [])),
    );
    expect(long).toEqual([]);
  });
});
