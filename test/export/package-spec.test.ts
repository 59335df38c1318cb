/**
 * The spec an exported project's package.json gets without `--package-spec`: one that `npm install`
 * resolves while the package is not on a registry (the tarball or git URL it was installed from,
 * as the installing project's lock file records it; a tarball `npm pack` wrote beside a clone),
 * `^version` only from a registry or when nothing else is known; and why, in words.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { choosePackageSpec } from "../../src/export/package-spec";

const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string };
const TARBALL = `pulumi-workspace-access-${version}.tgz`;

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A folder laid out as `files` says (path → content). */
function layout(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-spec-"));
  temps.push(root);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return root;
}

const lock = (resolved: string) => JSON.stringify({ packages: { "node_modules/pulumi-workspace-access": { version, resolved } } });
const installed = "npx/node_modules/pulumi-workspace-access";

describe("the exported project's spec of this package, without --package-spec", () => {
  it("is the tarball npx ran the command from, as a path from the project", () => {
    const root = layout({
      [`${installed}/package.json`]: "{}",
      "npx/package-lock.json": lock(`file:../work/${TARBALL}`),
      [`work/${TARBALL}`]: "",
    });
    expect(choosePackageSpec(path.join(root, "work", "access"), path.join(root, installed))).toEqual({
      spec: `file:../${TARBALL}`,
      why: "the tarball this command was installed from",
    });
  });

  it("reads npm's copy of the lock in node_modules when the project has none", () => {
    const root = layout({
      [`${installed}/package.json`]: "{}",
      "npx/node_modules/.package-lock.json": lock(`file:../t/${TARBALL}`),
      [`t/${TARBALL}`]: "",
    });
    expect(choosePackageSpec(path.join(root, "out"), path.join(root, installed)).spec).toBe(`file:../t/${TARBALL}`);
  });

  it("is the git URL it was installed from", () => {
    const git = "git+ssh://git@github.com/acme/pulumi-workspace-access.git#0123456789abcdef0123456789abcdef01234567";
    const root = layout({ [`${installed}/package.json`]: "{}", "npx/package-lock.json": lock(git) });
    expect(choosePackageSpec(path.join(root, "out"), path.join(root, installed))).toEqual({
      spec: git,
      why: "the git URL this command was installed from",
    });
  });

  it("is ^version when it came from a registry", () => {
    const root = layout({ "npx/package-lock.json": lock(`https://registry.npmjs.org/pulumi-workspace-access/-/${TARBALL}`) });
    expect(choosePackageSpec(path.join(root, "out"), path.join(root, installed)).spec).toBe(`^${version}`);
  });

  it("is the tarball npm pack wrote beside a clone (the README's npm pack --pack-destination ..)", () => {
    const root = layout({ "clone/package.json": "{}", [TARBALL]: "" });
    expect(choosePackageSpec(path.join(root, "access"), path.join(root, "clone"))).toEqual({
      spec: `file:../${TARBALL}`,
      why: "the tarball npm pack wrote beside this package",
    });
  });

  it("says so when the tarball beside a clone is older than the clone's build (rebuilt since its last npm pack)", () => {
    const root = layout({ "clone/package.json": "{}", "clone/dist/index.js": "", [TARBALL]: "" });
    const built = Date.now() / 1000;
    fs.utimesSync(path.join(root, TARBALL), built - 3600, built - 3600);
    fs.utimesSync(path.join(root, "clone", "dist", "index.js"), built, built);
    expect(choosePackageSpec(path.join(root, "access"), path.join(root, "clone"))).toEqual({
      spec: `file:../${TARBALL}`,
      why: "the tarball npm pack wrote beside this package",
      caution: "it is older than this build: run npm pack again to install this code, or give --package-spec",
    });
    // Packed after the build: no word of it.
    fs.utimesSync(path.join(root, TARBALL), built + 60, built + 60);
    expect(choosePackageSpec(path.join(root, "access"), path.join(root, "clone"))).toEqual({
      spec: `file:../${TARBALL}`,
      why: "the tarball npm pack wrote beside this package",
    });
  });

  it("is ^version, saying to give --package-spec, when nothing it came from is known (a tarball since removed)", () => {
    const root = layout({ [`${installed}/package.json`]: "{}", "npx/package-lock.json": lock(`file:../gone/${TARBALL}`) });
    const choice = choosePackageSpec(path.join(root, "out"), path.join(root, installed));
    expect(choice.spec).toBe(`^${version}`);
    expect(choice.why).toContain("give --package-spec");
  });
});
