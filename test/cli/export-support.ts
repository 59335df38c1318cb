/** What the export's tests through the real CLI share: the built export command, and the populated world they export. */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { repoRoot } from "../support/paths.ts";
import { NO_FALLBACKS } from "./scenario.ts";

/** The built export command (`npm run build` first). */
const EXPORT_CLI = path.join(repoRoot, "dist", "export", "cli.js");

/** Runs the built export command with `env` added to this process's (no key fallbacks), asynchronously: the emulator answers in this process. */
export function runExport(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [EXPORT_CLI, ...args],
      { env: { ...process.env, ...NO_FALLBACKS, ...env }, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The populated world (482 users, 274 memberships), one member holding an entitlement its integration no longer offers. */
export async function populatedWithRetired(): Promise<Emulator> {
  const emulator = await startEmulator({ world: "populated", job: { finishAfterPolls: 1 } });
  const retiredIn = emulator.integrations.list().find((i) => emulator.integrations.members(i.id).length > 0)!;
  const member = emulator.integrations.members(retiredIn.id)[0]!;
  emulator.integrations.setMember(retiredIn.id, member.userId, {
    role: member.role,
    entitlements: [...member.entitlements, "RETIRED_ACCESS"],
  });
  return emulator;
}
