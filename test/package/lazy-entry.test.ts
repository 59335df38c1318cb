/**
 * The package's entry, as a program loads it, loads neither zod nor undici nor the client's request path until a lookup
 * or `getJob` runs (docs/testing.md, issue 33's fixed cost of every `up`): a child `node` requires the built entry under
 * Pulumi's mocks, declares one resource of each class, and reports what `require.cache` holds; then a `getJob` against a
 * loopback server answering 401 shows the client loaded at its first call.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/paths.ts";

const CHILD = `
const http = require("node:http");
const pulumi = require("@pulumi/pulumi");
const loaded = () => Object.keys(require.cache).map((file) => file.slice(process.cwd().length + 1));
(async () => {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name + "-id", state: a.inputs }), call: (a) => a.inputs }, "lazy", "dev", false);
  const wa = require("./dist/index.js");
  const integrationId = "d538422e-b135-4ee0-8393-54eecbcb4a07";
  const user = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
  new wa.IntegrationEntitlement("alice-yt", { integrationId, userId: user.id, entitlements: ["VIEWER"] });
  const members = new wa.IntegrationMembers("slack", { integrationId: "0f3c7c1e-9d0a-4f5e-8a47-2b9e6f1d3c55", members: [] });
  await new Promise((resolve) => pulumi.all([user.id, members.id]).apply(resolve));
  const declared = loaded();
  const server = http.createServer((req, res) => res.writeHead(401, { "content-type": "application/json" }).end('{"message":"no"}'));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.WORKSPACE_ACCESS_BASE_URL = "http://127.0.0.1:" + server.address().port + "/api/v1/";
  process.env.WORKSPACE_ACCESS_API_KEY = "lazy-entry-test-key";
  const failure = await wa.getJob({ id: "job-1" }).then(() => "answered", (error) => error.name);
  server.close();
  console.log(JSON.stringify({ declared, failure, afterGetJob: loaded() }));
})();
`;

const heavy = (files: string[]) => files.filter((file) => /node_modules\/(zod|undici)\/|^dist\/client\/transport\.js$/.test(file));

describe("the program's entry", () => {
  const child = spawnSync(process.execPath, ["-e", CHILD], { cwd: repoRoot, encoding: "utf8", timeout: 50_000 });
  const report = JSON.parse(child.stdout || "null") as { declared: string[]; failure: string; afterGetJob: string[] } | null;

  it("declares resources without loading zod, undici or the client's request path", () => {
    expect(child.stderr).toBe("");
    expect(report?.declared).toContain("dist/program/integration-members.js");
    expect(heavy(report?.declared ?? [])).toEqual([]);
  });

  it("loads the client at the first getJob", () => {
    expect(report?.failure).toBe("UnauthorizedError");
    expect(report?.afterGetJob).toContain("dist/client/transport.js");
    expect(heavy(report?.afterGetJob ?? []).some((file) => file.includes("node_modules/undici/"))).toBe(true);
  });
});
