/**
 * A provider host's start (src/provider/host-start.ts): a child `node` loads `@pulumi/pulumi` as the host does, then the
 * built IntegrationMembers entry, and runs `check` twice: inputs of the wrong type (the package's message; zod's own are
 * English still, with no locale file loaded but English), and valid ones, whose catalogue read reaches a loopback server (undici loaded from the modules
 * the transport uses, not its index).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/paths.ts";

const CHILD = `
const http = require("node:http");
require("@pulumi/pulumi");
const loaded = () => Object.keys(require.cache).filter((f) => f.includes("node_modules")).map((f) => f.slice(f.lastIndexOf("node_modules/") + 13));
(async () => {
  const { provider } = require("./dist/provider/integration-members.js");
  const asked = [];
  const server = http.createServer((req, res) => asked.push(req.method + " " + req.url) && res.writeHead(401, { "content-type": "application/json" }).end('{"message":"no"}'));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const config = { "workspace-access:baseUrl": "http://127.0.0.1:" + server.address().port + "/api/v1/", "workspace-access:apiKey": "host-start-test-key" };
  await provider.configure({ config: { get: (key) => config[key], require: (key) => config[key] } });
  const wrong = await provider.check({}, { integrationId: "0f3c7c1e-9d0a-4f5e-8a47-2b9e6f1d3c55", members: [], removeUnmanaged: "yes" });
  const english = require("zod").z.string().safeParse(1).error.issues[0].message;
  const members = [{ userId: "9b2f4a6e-1c3d-4e5f-8a7b-6c5d4e3f2a1b", entitlements: ["VIEWER"] }];
  const valid = await provider.check({}, { integrationId: "0f3c7c1e-9d0a-4f5e-8a47-2b9e6f1d3c55", members }).then((r) => r.failures.length + " failures", (e) => e.name);
  server.close();
  const report = { wrong: wrong.failures, english, valid, asked, loaded: loaded() };
  // What another dynamic provider of the program, in this host, asks of the same zod afterwards: a translation.
  const zod = require("zod");
  report.translations = [typeof zod.z.locales.de, typeof zod.core.locales.fr, typeof require("zod/v4/locales").es, typeof require("zod/locales").it];
  console.log(JSON.stringify(report));
})();
`;

describe("a provider host's start", () => {
  const child = spawnSync(process.execPath, ["-e", CHILD], { cwd: repoRoot, encoding: "utf8", timeout: 50_000 });
  const report = JSON.parse(child.stdout || "null") as {
    wrong: { property: string; reason: string }[];
    english: string;
    valid: string;
    asked: string[];
    loaded: string[];
    translations: string[];
  } | null;

  it("loads none of zod's translations, and its messages are still English", () => {
    expect(child.stderr).toBe("");
    expect(report?.wrong).toEqual([{ property: "removeUnmanaged", reason: "removeUnmanaged must be true or false" }]);
    expect(report?.english).toBe("Invalid input: expected string, received number");
    expect(report?.loaded.filter((file) => file.startsWith("zod/v4/locales/")).sort()).toEqual(["zod/v4/locales/en.cjs"]);
  });

  it("still hands zod's translations to whoever asks for them later in the host (another dynamic provider of the program)", () => {
    expect(report?.translations).toEqual(["function", "function", "function", "function"]);
  });

  it("loads undici's pool and request modules for its first request, not undici's index", () => {
    expect(report?.asked[0]).toBe("GET /api/v1/integrations/0f3c7c1e-9d0a-4f5e-8a47-2b9e6f1d3c55/entitlements");
    expect(report?.loaded).toContain("undici/lib/dispatcher/pool.js");
    expect(report?.loaded).not.toContain("undici/index.js");
  });
});

describe("a provider host's start, should zod need its translations to load", () => {
  // A zod whose index reads its locales while it loads: the first require of "zod" (host-start's, with the locales left
  // out) reads one as such a zod would, and throws without it; host-start's stand-in hands it zod's locales as it ships them.
  const FALLBACK = `
const Module = require("node:module");
const load = Module._load;
const locales = require.resolve("zod/v4/locales");
let read = false;
Module._load = function (request, ...rest) {
  if (request === "zod" && !read) {
    read = true;
    if (typeof require(locales).en !== "function") throw new TypeError("Cannot read properties of undefined (reading 'en')");
  }
  return load.call(this, request, ...rest);
};
require("@pulumi/pulumi");
const { provider } = require("./dist/provider/integration-members.js");
(async () => {
  await provider.configure({ config: { get: () => undefined, require: () => undefined } });
  const wrong = await provider.check({}, { integrationId: "0f3c7c1e-9d0a-4f5e-8a47-2b9e6f1d3c55", members: [], removeUnmanaged: "yes" });
  const english = require("zod").z.string().safeParse(1).error.issues[0].message;
  const localeFiles = Object.keys(require.cache).filter((f) => f.includes("zod/v4/locales/")).length;
  console.log(JSON.stringify({ read, wrong: wrong.failures.filter((f) => f.property), english, localeFiles }));
})();
`;

  it("loads them after all: the provider works, with zod's locales as zod ships them", () => {
    const { NODE_COMPILE_CACHE: _, ...env } = process.env;
    const child = spawnSync(process.execPath, ["-e", FALLBACK], { cwd: repoRoot, encoding: "utf8", timeout: 50_000, env });
    expect(child.stderr).toBe("");
    const report = JSON.parse(child.stdout) as { read: boolean; wrong: unknown[]; english: string; localeFiles: number };
    expect(report.read).toBe(true);
    expect(report.wrong).toEqual([{ property: "removeUnmanaged", reason: "removeUnmanaged must be true or false" }]);
    expect(report.english).toBe("Invalid input: expected string, received number");
    // Every locale file, as zod's index loads them (the provider's own start loads two).
    expect(report.localeFiles).toBeGreaterThan(20);
  });
});

describe("a provider host's compile cache", () => {
  // As users run it: no NODE_COMPILE_CACHE (the tests' turns the cache on before any module, under node's own flags).
  const cacheDir = (script: string, more: Record<string, string> = {}) => {
    const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...env } = process.env;
    const child = spawnSync(process.execPath, ["-e", `${script}; console.log(require("node:module").getCompileCacheDir() ?? "none")`], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 50_000,
      env: { ...env, ...more },
    });
    expect(child.stderr).toBe("");
    return child.stdout.trim();
  };
  const host = 'require("@pulumi/pulumi"); require("./dist/provider/integration-members.js")';

  it("is on, and compiles eagerly: its folder is named for other V8 flags than a plain node's (so no cache is read under others)", () => {
    const plain = cacheDir('require("node:module").enableCompileCache()');
    const eager = cacheDir(host);
    expect(eager).not.toBe("none");
    expect(plain).not.toBe("none");
    // <base>/v<node>-<arch>-<flags hash>-<uid>: the same base, version and arch; another flags hash.
    const [base, name] = [eager.slice(0, eager.lastIndexOf("/")), eager.slice(eager.lastIndexOf("/") + 1)];
    expect(plain.slice(0, plain.lastIndexOf("/"))).toBe(base);
    expect(name.split("-").slice(0, 2)).toEqual(
      plain
        .slice(plain.lastIndexOf("/") + 1)
        .split("-")
        .slice(0, 2),
    );
    expect(name).not.toBe(plain.slice(plain.lastIndexOf("/") + 1));
  });

  it("stays lazy where NODE_COMPILE_CACHE turned the cache on: a program's entries in that folder are read, not refused and rewritten", () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "wa-compile-cache-"));
    try {
      // What a program loads of the package (zod among it), then what a host loads: the same modules, the same folder.
      const run = (script: string) => {
        const { NODE_DISABLE_COMPILE_CACHE: _, ...env } = process.env;
        const child = spawnSync(process.execPath, ["-e", script], {
          cwd: repoRoot,
          encoding: "utf8",
          timeout: 50_000,
          env: { ...env, NODE_COMPILE_CACHE: folder, NODE_DEBUG_NATIVE: "COMPILE_CACHE" },
        });
        expect(child.status).toBe(0);
        return child.stderr.split("\n").filter((line) => line.includes("was rejected"));
      };
      run('require("@pulumi/pulumi"); require("./dist/index.js")');
      expect(run(host)).toEqual([]);
      expect(run('require("@pulumi/pulumi"); require("./dist/index.js")')).toEqual([]);
      expect(fs.readdirSync(folder)).toHaveLength(1);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("is off when NODE_DISABLE_COMPILE_CACHE is set, even empty (as node has it)", () => {
    expect(cacheDir(host, { NODE_DISABLE_COMPILE_CACHE: "1" })).toBe("none");
    expect(cacheDir(host, { NODE_DISABLE_COMPILE_CACHE: "" })).toBe("none");
  });
});
