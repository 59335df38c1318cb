/**
 * What an emulator saw of invitations, for the batching tests of the unit tier
 * (test/host/invite-batcher.test.ts) and through the host (test/reliability/batched-invitations.test.ts).
 */
import type { BatchInviteFailure, Emulator } from "../../src/emulator/index.ts";

/** The invitation POSTs into `integrationId` the emulator received: their status, time and `userIds`. */
export const invitePosts = (emu: Emulator, integrationId: string) =>
  emu.requests
    .filter((r) => r.method === "POST" && r.path === `/integrations/${integrationId}/users`)
    .map((r) => ({
      status: r.status,
      at: r.at,
      userIds: (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds,
    }));

/**
 * How many invitation jobs applied each user (must be exactly one for a member): every user a
 * finished job names, and, of a service that fails `partial`ly, the users a failed job names
 * other than those it failed for.
 */
export function appliedPerUser(emu: Emulator, mode: BatchInviteFailure = "whole"): Map<string, number> {
  const count = new Map<string, number>();
  for (const job of emu.jobs.list()) {
    if (job.workflowType !== "provide_access") continue;
    const named = job.payload["userIds"] as string[];
    const failing = (job.response["userIds"] as string[] | undefined) ?? named;
    const applied =
      job.status === "finished" ? named : job.status === "error" && mode === "partial" ? named.filter((id) => !failing.includes(id)) : [];
    for (const id of applied) count.set(id, (count.get(id) ?? 0) + 1);
  }
  return count;
}
