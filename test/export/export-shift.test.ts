/**
 * An export over a service whose offset pages shift while it reads (the emulator's `shiftPages`):
 * a listing proves nobody's absence, so every list is listed again at another page size, and
 * again until two listings in a row agree; nobody's access is missing from the exported project.
 * A quiet workspace costs the second listing and no page more.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type EmulatorQuirks, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { COMPLETE_LISTINGS } from "../../src/export/snapshot";
import { gets, options, YT } from "./support";

const USERS = 250;
const MEMBERS = 150;

function world() {
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    email: `u${String(i).padStart(3, "0")}@x.example`,
    firstName: "U",
    lastName: `N${i}`,
  }));
  return {
    users,
    integrations: [
      {
        id: YT,
        application: "YouTube",
        label: "YouTube acme",
        entitlements: [{ id: "VIEWER" }],
        users: users.slice(0, MEMBERS).map((u) => ({ userId: u.id, entitlements: ["VIEWER"] })),
      },
    ],
  };
}

async function exportWith(quirks: EmulatorQuirks) {
  const emulator = await startEmulator({ seed: world(), quirks });
  try {
    const opts = options(emulator);
    await runExport(opts);
    const file = parseAccessFile(fs.readFileSync(path.join(opts.out, "access.yaml"), "utf8"));
    const lines = gets(emulator);
    return {
      file,
      userPages: lines.filter((l) => l === "GET /users").length,
      memberPages: lines.filter((l) => l === `GET /integrations/${YT}/users`).length,
    };
  } finally {
    await emulator.close();
  }
}

describe("an export while pages shift", () => {
  it("a record removed before the page being read (one skipped): every user and membership is exported, the lists read again", async () => {
    const { file, userPages, memberPages } = await exportWith({ shiftPages: "remove" });
    expect(file.users).toHaveLength(USERS);
    expect(file.memberships).toHaveLength(MEMBERS);
    // Listings until two agree: 3 + 3 + 3 user pages, 2 + 2 + 2 member pages (at most COMPLETE_LISTINGS listings).
    expect(userPages).toBeGreaterThan(6);
    expect(userPages).toBeLessThanOrEqual(3 * COMPLETE_LISTINGS);
    expect(memberPages).toBeGreaterThan(4);
  });

  it("a record inserted before it (one listed twice, none skipped): everything exported once, each list proven by one more listing", async () => {
    const { file, userPages, memberPages } = await exportWith({ shiftPages: "insert" });
    expect(file.users).toHaveLength(USERS);
    expect(file.memberships).toHaveLength(MEMBERS);
    expect([userPages, memberPages]).toEqual([6, 4]);
  });

  it("a quiet workspace (records listed twice alone included) is read twice, 100 then 99 a page: no page more", async () => {
    for (const quirks of [{}, { repeatRecords: true }]) {
      const { file, userPages, memberPages } = await exportWith(quirks);
      expect(file.users).toHaveLength(USERS);
      expect(file.memberships).toHaveLength(MEMBERS);
      expect([userPages, memberPages]).toEqual([6, 4]);
    }
  });
});
