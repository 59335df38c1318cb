/**
 * Secrets and access through the real `pulumi` CLI (issue 6, "Secrets and access"). Every
 * scenario of test/reliability greps everything the CLI showed and stored for the key (see
 * `expectNoKeyLeak`); here the service itself echoes the key back, and scopes and transport
 * rules are checked end to end.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/paths.ts";
import { distinctiveKey, header, scenarios, userProgram } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

// The stacks keep the passphrase users have (not the test tiers' faster key service): what the key touches is the subject.
const open = scenarios();
const start: typeof open = (options) => open({ secrets: "passphrase", ...options });

const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  describe("the API key never leaves the provider", () => {
    it("is redacted when the service echoes it back in an error, whatever the error class", async () => {
      // A user per error class, all created in one up (one CLI run, not one each): each create meets its own answer.
      const statuses = [400, 401, 402, 403, 409, 500];
      const users = Object.fromEntries(
        [...statuses, "invalid"].map((name) => [`u${name}`, { email: `u${name}@example.com`, firstName: "U", lastName: `${name}` }]),
      );
      const s = await start({ program: userProgram(users), config: { maxRetries: "0" } });
      const echo = (status: number) =>
        JSON.stringify({ errors: [{ code: "E", title: `key ${s.key}`, detail: `your key ${s.key} is wrong`, status, meta: null }] });
      for (const status of statuses) s.emu.fault({ method: "POST", path: "/users", status, body: echo(status) });
      // Not JSON at all, echoing the key: the invalid-response error quotes the body, redacted.
      s.emu.fault({ method: "POST", path: "/users", status: 201, body: `oops ${s.key}` });
      // --continue-on-error: the engine starts every create, not only those under way at the first failure.
      const error = await s.fails("up", "--continue-on-error");
      expect(error.message).not.toContain(s.key);
      const answered = s.emu.requests.filter((r) => r.method === "POST" && r.path === "/users").map((r) => r.status);
      expect(answered.sort()).toEqual([...statuses, 201].sort());
      const failures = error.result.errors.filter((e) => e.includes("POST"));
      expect(failures).toHaveLength(statuses.length + 1);
      for (const status of statuses) {
        const failure = failures.filter((e) => e.includes(`answered ${status}`));
        expect(failure, `the ${status}`).toHaveLength(1);
        expect(failure[0]).toContain("[redacted]");
      }
      expect(failures.filter((e) => e.includes("not JSON"))).toHaveLength(1);
      // A successful run afterwards: state, outputs and __provider hold no key either.
      await s.up();
      const state = fs.readFileSync(s.stack.statePath, "utf8");
      expect(state).not.toContain(s.key);
      const provider = s.stack.state().resources.find((r) => r.name === "u400")?.inputs["__provider"];
      expect(provider).toBe('exports.handler = () => require("pulumi-workspace-access/provider/user").provider;\n');
    });

    it("no 8 characters of it in a row reach anything captured, from a proxy page cut at 80 characters or a partial echo", async () => {
      // A user per answer, all created in one up (one CLI run, not one each): each create meets its own answer.
      const users = { u1: { email: "u1@example.com" }, u2: { email: "u2@example.com" }, u3: { email: "u3@example.com" } };
      const s = await start({ program: userProgram(users), config: { maxRetries: "0" } });
      const runs = (text: string) => {
        const found: string[] = [];
        for (let i = 0; i + 8 <= s.key.length; i++) if (text.includes(s.key.slice(i, i + 8))) found.push(s.key.slice(i, i + 8));
        return found;
      };
      // A proxy's page answering 201, echoing the request headers: the key runs across character 80.
      const page = `<html><body>Proxy. Request headers: accept: */*; x-api-key: ${s.key}; host: x</body></html>`;
      expect(page.indexOf(s.key)).toBeLessThan(80);
      expect(page.indexOf(s.key) + s.key.length).toBeGreaterThan(80);
      const answers = [
        { status: 201, body: page },
        { status: 403, body: JSON.stringify({ errors: [{ code: "F", title: "F", detail: `key ${s.key.slice(0, 20)}…`, status: 403 }] }) },
        {
          status: 400,
          body: JSON.stringify({ errors: [{ code: "B", title: "B", detail: "bad", status: 400, meta: { input: s.key.slice(4) } }] }),
        },
      ];
      for (const answer of answers) s.emu.fault({ method: "POST", path: "/users", ...answer });
      // --continue-on-error: the engine starts every create, not only those under way at the first failure.
      const error = await s.fails("up", "--continue-on-error");
      const answered = s.emu.requests.filter((r) => r.method === "POST" && r.path === "/users").map((r) => r.status);
      expect(answered.sort()).toEqual(answers.map((a) => a.status).sort());
      expect(error.result.errors.filter((e) => e.includes("POST"))).toHaveLength(answers.length);
      expect(runs(error.message)).toEqual([]);
      expect(runs(s.captured())).toEqual([]);
    });

    it("echoed base64-encoded (a gateway's Basic credentials, a header too), reaches nothing captured", async () => {
      const s = await start({ program: userProgram({ alice }), config: { maxRetries: "0" } });
      const basic = Buffer.from(`${s.key}:`).toString("base64");
      const body = JSON.stringify({
        errors: [
          { code: "denied", title: "Denied", detail: `bad credentials Basic ${basic}`, status: 401, meta: { authorization: basic } },
        ],
      });
      s.emu.fault({ method: "POST", path: "/users", status: 401, body, headers: { "x-request-id": basic } });
      const error = await s.fails("up");
      expect(error.message).toContain("bad credentials Basic [redacted]");
      // The key alone decides all but the last characters of its Basic credentials (`:` pads them).
      const decided = Buffer.from(s.key)
        .toString("base64")
        .slice(0, Math.floor((s.key.length * 8) / 6));
      expect(s.captured()).not.toContain(decided);
    });

    it("apiKey in plaintext stack config warns, suggesting --secret", async () => {
      const s = await start({ program: userProgram({ alice }), secretKey: false });
      const preview = await s.preview();
      const warning = preview.diagnostics.find((l) => l.startsWith("warning: ") && l.includes("workspace-access:apiKey"));
      expect(warning).toContain("pulumi config set --secret workspace-access:apiKey");
      expect(warning).not.toContain(s.key);
    });

    it("a secret apiKey gives no warning", async () => {
      const s = await start({ program: userProgram({ alice }) });
      const preview = await s.preview();
      expect(preview.diagnostics.filter((l) => l.startsWith("warning: "))).toEqual([]);
    });
  });

  describe("secret inputs", () => {
    it("a secret email stays out of the state in plaintext when an update leaves it unsent (changed in the service since)", async () => {
      const program = (first: string) =>
        `${header}import * as pulumi from "@pulumi/pulumi";\n` +
        `new wa.User("s", { email: pulumi.secret("hidden.person@example.com"), firstName: ${JSON.stringify(first)}, lastName: "L" });\n`;
      const s = await start({ program: program("A") });
      await s.up();
      const id = s.emu.users.findByEmail("hidden.person@example.com")?.id ?? "";
      s.emu.users.update(id, { email: "moved@example.com" });
      s.setProgram(program("B"));
      await s.up();
      expect(s.emu.users.get(id)).toMatchObject({ email: "moved@example.com", firstName: "B" });
      expect(fs.readFileSync(s.stack.statePath, "utf8")).not.toContain("hidden.person@example.com");
    });
  });

  describe("transport", () => {
    it("refuses a non-loopback http:// base URL before sending anything", async () => {
      const s = await start({ program: userProgram({ alice }) });
      s.setConfig("baseUrl", "http://acme.example.com/api/v1/");
      const error = await s.fails("up");
      // Refused in Check, before any create, as the preview of a pull request would be.
      expect(error.message).toContain("plain http://");
      expect(error.message).toContain("workspace-access:baseUrl");
      expect(s.emu.requests).toHaveLength(0);
    });

    it("never disables TLS verification anywhere in the shipped code", () => {
      const files: string[] = [];
      const walk = (dir: string): void => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const file = path.join(dir, e.name);
          if (e.isDirectory()) walk(file);
          else if (/\.(ts|js)$/.test(e.name)) files.push(file);
        }
      };
      walk(path.join(repoRoot, "src"));
      if (fs.existsSync(path.join(repoRoot, "dist"))) walk(path.join(repoRoot, "dist"));
      expect(files.length).toBeGreaterThan(10);
      for (const file of files) {
        const text = fs.readFileSync(file, "utf8");
        expect(text, file).not.toMatch(/rejectUnauthorized|NODE_TLS_REJECT_UNAUTHORIZED|checkServerIdentity|insecureHTTPParser/);
      }
    });
  });

  describe("401 and 403 name the scope the operation needs", () => {
    for (const status of [401, 403] as const) {
      it(`${status} on a user create names Write users (write:users)`, async () => {
        const limited = distinctiveKey();
        const s = await start({
          program: userProgram({ alice }),
          emulator: { keys: { [limited]: ["read:users"] }, missingScopeStatus: status },
        });
        s.stack.setConfig("workspace-access:apiKey", { value: limited, secret: true });
        const error = await s.fails("up");
        expect(error.message).toContain(`answered ${status}`);
        expect(error.message).toContain("Write users (write:users)");
        expect(error.message).toContain("pulumi config set --secret workspace-access:apiKey");
        expect(s.captured()).not.toContain(limited);
        expect(s.emu.users.list()).toHaveLength(0);
      });
    }
  });
});
