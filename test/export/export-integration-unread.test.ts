/**
 * One integration whose member list cannot be read, in process against the emulator over loopback: deleted between the
 * integration list and its member list (both it and its member list answer 404), or refused to the key (403, or 404
 * while the integration itself answers). One odd integration never fails the others: a deleted one is gone (a 404 of the
 * integration itself proves it), one refused is set aside as left out with the reason, its members not compared, and no
 * message blames the address once the service has answered as the workspace API.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { rejection } from "../support/fixtures";
import { answerWith, env, gets, OTHER, options, rawPage, withTwoIntegrations } from "./support";

const members = (dir: string) =>
  parseAccessFile(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).integrations.map((i) => [i.label, i.members.map((m) => m.user)]);

describe("an integration whose member list cannot be read", () => {
  it("answering 403: set aside as left out with the reason, the other integration exported", async () => {
    await withTwoIntegrations(async (emulator) => {
      emulator.fault({ method: "GET", path: `/integrations/${OTHER}/users`, status: 403, times: 10 });
      const result = await runExport(options(emulator));
      expect(members(result.dir)).toEqual([["YouTube acme", ["ann@x.example", "bob@x.example"]]]);
      expect(result.leftOut.map((l) => l.text)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^integration ${OTHER} \\("Slack acme"\\): its members could not be read: GET /api/v1/integrations/${OTHER}/users answered 403`,
          ),
        ),
      ]);
      expect(result.leftOut[0]!.text).not.toMatch(/Check the address/);
    });
  });

  it("answering 404 while the integration itself answers: set aside, not taken for gone", async () => {
    await withTwoIntegrations(async (emulator) => {
      emulator.fault({ method: "GET", path: `/integrations/${OTHER}/users`, status: 404, times: 10 });
      const result = await runExport(options(emulator));
      expect(members(result.dir)).toEqual([["YouTube acme", ["ann@x.example", "bob@x.example"]]]);
      expect(result.leftOut.map((l) => l.text)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^integration ${OTHER} \\("Slack acme"\\): its members could not be read \\(the integration itself answers: its members may not be disclosed to this key\\): GET /api/v1/integrations/${OTHER}/users answered 404`,
          ),
        ),
      ]);
      expect(gets(emulator)).toContain(`GET /integrations/${OTHER}`);
    });
  });

  it("deleted after the integrations were listed (it and its member list answer 404): gone, proven by its own 404", async () => {
    await withTwoIntegrations(async (emulator) => {
      const listed = await rawPage(emulator, "integrations");
      answerWith(emulator, "integrations", listed);
      emulator.integrations.remove(OTHER);
      const result = await runExport(options(emulator));
      expect(members(result.dir)).toEqual([["YouTube acme", ["ann@x.example", "bob@x.example"]]]);
      expect(result.leftOut).toEqual([]);
    });
  });

  it("--check: one refused is one left-out line and --accept refuses to drop its members; one deleted reports its members gone", async () => {
    await withTwoIntegrations(async (emulator) => {
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      const before = fs.readFileSync(file, "utf8");
      const check = (accept = false) => runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept });

      emulator.fault({ method: "GET", path: `/integrations/${OTHER}/users`, status: 403, times: 10 });
      const refused = await check();
      expect(refused.changes.map((c) => c.text)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^access\\.yaml declares integration ${OTHER} \\("Slack acme"\\) \\(1 member\\); the workspace has it in a form a project cannot declare: its members could not be read: GET /api/v1/integrations/${OTHER}/users answered 403`,
          ),
        ),
      ]);
      const accept = await rejection(check(true));
      expect(accept.message).toMatch(/^--accept would take out of access\.yaml what it declares of a record the workspace still has/);
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      emulator.clearFaults();

      const listed = await rawPage(emulator, "integrations");
      answerWith(emulator, "integrations", listed);
      emulator.integrations.remove(OTHER);
      expect((await check()).changes.map((c) => c.text)).toEqual([
        'access.yaml grants ann@x.example MEMBER in "Slack acme" as account_collaborator; the workspace does not (not a member there)',
      ]);
    });
  });

  it("a list failing after the integrations were listed fails the read without blaming the address", async () => {
    await withTwoIntegrations(async (emulator) => {
      emulator.fault({ method: "GET", path: "/users", status: 404, times: 10 });
      const error = await rejection(runExport(options(emulator)));
      expect(error.message).toMatch(/^GET \/api\/v1\/users answered 404/);
      expect(error.message).not.toMatch(/Check the address/);
    });
  });
});
