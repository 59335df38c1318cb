/**
 * The README as a user reads it: short, the scopes in the names the service shows, its two
 * commands where package.json has them, and no file cited, there or in docs/, that is not in the
 * repository (or an output the repository's commands write and .gitignore names, such as
 * bench/results.json), nor any absolute path. Its TypeScript snippets are compiled by consumer-types.test.ts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/client";
import { repoRoot } from "../support/paths.ts";

const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");
const readme = read("README.md");

/** Every Markdown file users or maintainers read. */
const documents = [
  "README.md",
  "CHANGELOG.md",
  ...fs.readdirSync(path.join(repoRoot, "docs"), { recursive: true, encoding: "utf8" }).map((f) => `docs/${f.split(path.sep).join("/")}`),
  ...fs
    .readdirSync(path.join(repoRoot, "examples"))
    .flatMap((e) => (fs.existsSync(path.join(repoRoot, "examples", e, "README.md")) ? [`examples/${e}/README.md`] : [])),
].filter((f) => f.endsWith(".md"));

/** Paths a document cites: Markdown links and code spans that name a file or folder of the repository. */
function citedPaths(text: string): string[] {
  const links = [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)\s#]+)/g)].map((m) => m[1] ?? "");
  const spans = [
    ...text.matchAll(
      /`((?:\.\.\/[A-Za-z]+|src|test|docs|examples|scripts|bench|\.ci)\/[A-Za-z0-9_./-]*|[A-Za-z.-]+\.(?:md|json|yaml\.example))`/g,
    ),
  ].map((m) => m[1] ?? "");
  return [...new Set([...links, ...spans])].filter((p) => !p.includes("*") && !p.includes("<") && !/^Pulumi\.[a-z]+\.yaml$/.test(p));
}

/**
 * The messages the README quotes: code spans (outside code blocks) that read as a sentence (a
 * capitalised word, then another word) or as a seed error (`... is required`).
 */
function quotedMessages(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "");
  const spans = [...prose.matchAll(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g)].map((m) => (m[2] ?? "").trim().replace(/\s+/g, " "));
  return [...new Set(spans.filter((span) => /^[A-Z][a-z]* [A-Za-z]/.test(span) || / (is required|must be|is not a field)\b/.test(span)))];
}

/**
 * The parts of a quoted message that the code must hold word for word, sentence by sentence: what
 * is left between the parts a message fills in (a key or value in backticks, a `<placeholder>`, a
 * `workspace-access:` setting name, a field path such as `users[0].email`, a `pulumi config`
 * command, which the code builds from the setting), trimmed of punctuation; at least two words.
 */
function fixedParts(message: string): string[] {
  return message
    .split(/`[^`]*`|<[^>]*>|workspace-access:\w+|\b\w+(?:\[\d+\])*(?:\.\w+(?:\[\d+\])*)+|\[\d+\]|pulumi config [^.;]*|[.?!;:](?:\s|$)/)
    .map((part) => part.replace(/^[\s.,:;?!()]+|[\s.,:;?!()]+$/g, ""))
    .filter((part) => /[A-Za-z]{2,}\s+[A-Za-z]{2,}/.test(part));
}

/** Every .ts file under `dir`, joined. */
function sourceText(dir: string): string {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => fs.readFileSync(path.join(dir, file), "utf8"))
    .join("\n");
}

describe("docs/integration-members.md", () => {
  it("is for users: under 1,000 words, the internals in its design note", () => {
    const words = read("docs/integration-members.md").split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThan(1_000);
    expect(read("docs/integration-members.md")).toContain("](design/integration-members.md)");
    expect(read("docs/design/integration-members.md")).toContain("HOLD_MS");
  });
});

describe("the README", () => {
  it("is under 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThan(250);
  });

  it("lists every scope in the name the service shows", () => {
    for (const scope of Object.values(SCOPES)) expect(readme).toContain(`| ${scope.name} |`);
  });

  it("quotes only messages the package has: each one's fixed words are in src/", () => {
    const quoted = quotedMessages(readme);
    expect(quoted).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Unknown setting/),
        expect.stringMatching(/^No API key/),
        "users[0].email is required",
      ]),
    );
    const sources = sourceText(path.join(repoRoot, "src"));
    const missing = quoted.flatMap((message) =>
      fixedParts(message)
        .filter((part) => !sources.includes(part))
        .map((part) => `${message}: "${part}"`),
    );
    expect(missing).toEqual([]);
  });

  it("keeps its two commands, and points to the adoption guide", () => {
    expect(readme).toContain("npm ci && npm run demo");
    expect(readme).toContain("npm ci && npm test");
    expect(readme).toMatch(/### Adopting an existing workspace[\s\S]*`docs\/adoption\.md`/);
  });
});

describe.each(documents)("%s", (document) => {
  it("cites only files of the repository (a clone has nothing beside it)", () => {
    const base = document.startsWith("docs/") || document.includes("/README.md") ? path.dirname(document) : ".";
    const missing = citedPaths(read(document)).filter((cited) => {
      if (path.relative(repoRoot, path.resolve(repoRoot, base, cited)).startsWith("..")) return true;
      // A path is relative to the document (links) or to the repository root (code spans).
      if ([path.join(repoRoot, base, cited), path.join(repoRoot, cited)].some((candidate) => fs.existsSync(candidate))) return false;
      return spawnSync("git", ["check-ignore", "-q", cited], { cwd: repoRoot }).status !== 0;
    });
    expect(missing).toEqual([]);
  });

  it("names no issue of the project's tracker (a reader has none of them)", () => {
    expect(read(document).match(/#\d+|\b[Ii]ssues? \d+/g) ?? []).toEqual([]);
  });

  it("names no absolute path of a machine and no path outside the repository", () => {
    const text = read(document);
    expect(text.match(/(?<![\w.~])\/(?:work|home|root|tmp|Users|var|opt)\/[^\s`)]*/g) ?? []).toEqual([]);
    expect(text.match(/(?<![\w.])\.\.\/(?:\.\.\/)*shared\/[^\s`)]*/g) ?? []).toEqual([]);
  });
});
