/**
 * The access review (`--check`, `--accept`) under an ordinary sync (issue 28, case 4): between page
 * 1 and page 2 of the review's member listing, a member of page 1 leaves and a new one joins. The
 * total is unchanged, so no count can see it, and the first member of page 2 moves onto page 1,
 * unread. The review claims no absence that a second listing at another page size did not confirm:
 * it reports the leaver and the joiner, and not the member the shift hid.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runCheck } from "../../src/export/run-check";
import { runExport } from "../../src/export/run";
import { env, options, YT } from "./support";

const USERS = 160;
const MEMBERS = 150;
const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const email = (i: number) => `u${String(i).padStart(3, "0")}@x.example`;

function world() {
  const users = Array.from({ length: USERS }, (_, i) => ({ id: userId(i), email: email(i), firstName: "U", lastName: `N${i}` }));
  const members = users.slice(0, MEMBERS).map((u) => ({ userId: u.id, entitlements: ["VIEWER"] }));
  return {
    users,
    integrations: [{ id: YT, application: "YouTube", label: "YouTube acme", entitlements: [{ id: "VIEWER" }], users: members }],
  };
}

describe("the access review while a sync changes the members between two pages", () => {
  it.each([false, true])("reports the leaver and the joiner, not the member the shift hid (accept: %s)", async (accept) => {
    const emulator = await startEmulator({ seed: world() });
    try {
      const opts = options(emulator);
      await runExport(opts);
      const leaver = 5;
      const joiner = 155;
      const hidden = 100; // the first member of page 2, moved onto page 1 by the leave
      const off = emulator.onPage((list) => {
        if (list.path === `/integrations/${YT}/users` && list.page === 2) {
          emulator.integrations.removeMember(YT, userId(leaver));
          emulator.integrations.setMember(YT, userId(joiner), { entitlements: ["VIEWER"] });
          off();
        }
      });
      const result = await runCheck({ out: opts.out, baseUrl: emulator.url, env: env(emulator), accept });
      const memberships = result.changes.filter((c) => c.kind === "membership").map((c) => `${c.side} ${c.user}`);
      expect(memberships.sort()).toEqual([`access.yaml ${email(leaver)}`, `workspace ${email(joiner)}`]);
      expect(JSON.stringify(result.changes)).not.toContain(email(hidden));
      if (!accept) return;
      // --accept writes what was read or confirmed: the hidden member keeps their line, the leaver's goes.
      const file = parseAccessFile(fs.readFileSync(path.join(opts.out, "access.yaml"), "utf8"));
      const users = new Set(file.memberships.map((m) => m.user));
      expect(users.has(email(hidden))).toBe(true);
      expect(users.has(email(leaver))).toBe(false);
      expect(users.has(email(joiner))).toBe(true);
    } finally {
      await emulator.close();
    }
  });
});
