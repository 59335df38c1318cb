import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { expect, it } from "vitest";
import { cliAvailable, skipNote } from "../cli/support.ts";
import { repoRoot } from "../support/paths.ts";
import { distinctiveKey } from "./support";

it.skipIf(!cliAvailable)(
  `the demo runs to the end through the real pulumi CLI and its output holds no API key${skipNote}`,
  () => {
    const key = distinctiveKey();
    const run = spawnSync(process.execPath, ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", path.join(repoRoot, "scripts", "demo.ts")], {
      cwd: repoRoot,
      env: { ...process.env, WA_DEMO_API_KEY: key },
      encoding: "utf8",
      // A whole life through the CLI: 4 minutes on a loaded machine (2 ran out at load 20).
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("destroy");
    // examples/basic looks its integrations and grace up: one listing of each (the integrations' proven by a second: an
    // application must name one integration), in each up and preview.
    expect(run.stdout.match(/the program's lookups: 3 reads/g)).toHaveLength(3);
    // Not a lookup, and shown apart: the first up's host reads each membership before its invitation, and the first member
    // read answering 404 ("not a member") is trusted once one listing of an integration's members (one record) shows the
    // key is shown integrations and users (a service may answer 404, "not disclosed", to a key without read:integrations or
    // read:users). It was GET /users?page[size]=1, which showed users alone: one request still, once per host, only where
    // such a 404 comes first.
    expect(run.stdout.match(/ GET \/integrations\/\S+\/users\?page\[size\]=1 200/g)).toHaveLength(1);
    expect(run.stdout).not.toMatch(/ GET \/users\?page\[size\]=1/);
    expect(`${run.stdout}\n${run.stderr}`).not.toContain(key);
  },
  270_000,
);
