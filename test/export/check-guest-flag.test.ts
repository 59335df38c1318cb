/**
 * `--check` of a guest flag the workspace's record does not tell (left out beside a guest role, `guestOf`), against what a
 * `User` declared from `access.yaml` does with it: a declared flag holds nothing there, so the project's `up` writes it, and
 * the review says so; `--accept` takes the flag out of the file, as the export leaves it out, and a `User` then writes nothing.
 * In process, against the emulator over loopback; the provider's writes asserted on the emulator's request log.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { provider } from "../../src/host/user/user-provider";
import { emulator } from "../support/fixtures";
import { configureFor, forgetContext } from "../support/provider";
import { env, lineDiff, options, twoMembers } from "./support";

const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET");

/** What the generated `index.ts` declares of the file's user `email` (a `User`, adopting), as the provider's `create` takes it. */
async function adoptAsDeclared(dir: string, email: string) {
  const user = parseAccessFile(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).users.find((u) => u.email === email)!;
  const { firstName, lastName, role, isGuest } = user;
  // Pulumi drops an input the program leaves undefined: the file's absent role and flag are not declared.
  const declared = Object.fromEntries(Object.entries({ email, firstName, lastName, role, isGuest }).filter(([, v]) => v !== undefined));
  return provider.create((await provider.check!({}, { ...declared, adoptExisting: true })).inputs!);
}

describe("--check of a guest flag the workspace's record does not tell", () => {
  it("reports the flag a User would write; --accept takes it out, as the export leaves it out, and a User then writes nothing", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir } = await runExport(options(emu));
    const file = path.join(dir, "access.yaml");
    const exported = fs.readFileSync(file, "utf8");
    // ann as a person may declare her: not a guest, her role left to the service.
    const declared = exported.replace(
      "    role: workspace_login_only\n    isGuest: false\n    id: u-ann",
      "    isGuest: false\n    id: u-ann",
    );
    expect(declared).not.toBe(exported);
    fs.writeFileSync(file, declared);
    // Made a guest in the service, whose record leaves the flag out beside the guest role: whether she is one is not told.
    emu.users.update("u-ann", { role: "workspace_guest_user", isGuest: null as unknown as boolean });

    const check = await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) });
    expect(check.changes.map((c) => [c.kind, c.side, c.accessYaml, c.workspace, c.text])).toEqual([
      [
        "user-guest",
        "both",
        "false",
        "not told",
        "access.yaml has ann@x.example as not a guest; the workspace does not tell whether they are (isGuest left out beside the role workspace_guest_user): pulumi up writes access.yaml's flag unless the stack's state records that write already",
      ],
    ]);

    // The export of the workspace now declares no flag for her: there is none to declare.
    const now = parseAccessFile(fs.readFileSync(path.join((await runExport(options(emu))).dir, "access.yaml"), "utf8"));
    expect(now.users.find((u) => u.email === "ann@x.example")).toEqual({
      name: "ann-at-x.example",
      email: "ann@x.example",
      firstName: "Ann",
      lastName: "Lee",
      role: "workspace_guest_user",
      id: "u-ann",
    });

    // --accept takes the flag out, as the export does; the role the file leaves out stays out (the service's).
    const accept = await runCheck({ out: dir, baseUrl: emu.url, env: env(emu), accept: true });
    expect(accept.accepted).toBe(true);
    expect(lineDiff(declared.split("\n"), fs.readFileSync(file, "utf8").split("\n"))).toEqual({
      removed: ["    isGuest: false"],
      added: [],
    });
    expect((await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).changes).toEqual([]);

    // The project's User of ann, as the accepted file declares her, adopts her with no write: the review's "no difference".
    await configureFor(emu, {}, { info: () => {} });
    emu.clearRequests();
    await adoptAsDeclared(dir, "ann@x.example");
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get("u-ann")).toMatchObject({ role: "workspace_guest_user", isGuest: null });

    // As the file declared her before: the write the review reported, which may make a guest a member.
    forgetContext();
    await configureFor(emu, {}, { info: () => {} });
    fs.writeFileSync(file, declared);
    await adoptAsDeclared(dir, "ann@x.example");
    expect(writes(emu)).toMatchObject([{ method: "PUT", path: "/users/u-ann", body: { data: { attributes: { isGuest: false } } } }]);
  });
});
