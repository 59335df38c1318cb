/**
 * The dynamic provider of {@link IntegrationEntitlement}, loaded by name in the dynamic-provider
 * host (`pulumi-workspace-access/provider/integration-entitlement`). The resource id is
 * `<integrationId>/<userId>`. Which HTTP call backs each operation (every write answers with a
 * job, awaited until it is `finished`):
 *
 * | operation | request |
 * |---|---|
 * | check | `GET /integrations/{id}/entitlements` once per integration and process, only for a new or changed entitlement set (see `entitlement-catalogue.ts`) |
 * | diff | none |
 * | create | first, whether the user is a member already: one `GET /integrations/{id}/users` list shared by the creates that arrive together, or `GET /integrations/{id}/users/{userId}` for a lone create (`member-lookup.ts`). Not a member: `POST /integrations/{id}/users` (invite; one request and one job for the creates of the same integration, role and set that arrive together, see `invite-batcher.ts`), `GET /jobs/{jobId}` until done, then (a lone create only) `GET /integrations/{id}/users/{userId}` for email and status. A member: fails without `adoptExisting`, writing nothing; with it, `PATCH /integrations/{id}/users/{userId}` (replace the set) and its job when the set differs, nothing when it matches |
 * | update | `PATCH /integrations/{id}/users/{userId}` and its job; after a partial create, `GET /jobs/{jobId}` for its recorded job until done, then the member, then invite or `PATCH` as above (a member with another role than declared was not made by the invitation: the adoption rules apply) |
 * | read | `GET /integrations/{id}/users/{userId}`, or one `GET /integrations/{id}/users` list shared by the reads of a refresh; a partial create whose member is not there yet: `GET /jobs/{jobId}` once, kept while the job runs |
 * | delete | a partial create: first `GET /jobs/{jobId}` until done (fails, keeping the resource, while it still runs); then `DELETE /integrations/{id}/users/{userId}`, then the job; 404 means already gone |
 *
 * Once the service has accepted a write of a create (or of an update resuming one) and answered
 * with a job, a failure while waiting for that job, other than the job itself failing (a timeout,
 * or polling that still fails after the client's retries), records the resource as partially
 * created with that job: the next `pulumi up` waits for the job instead of inviting again.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ConfigurationError,
  type IntegrationUser,
  JobFailedError,
  type JobHandle,
  unlessNotFound,
  type WorkspaceAccessClient,
  WorkspaceAccessError,
} from "../client";
import { claim, isClaimed, memberClaim } from "./claims";
import { unofferedEntitlements } from "./entitlement-catalogue";
import { type InviteOutcome, markUnfinished, settle, unfinishedJobOf } from "./invite-batcher";
import {
  DEFAULT_INTEGRATION_ROLE,
  defined,
  entitlementSet,
  type IntegrationEntitlementInputs,
  integrationEntitlementInputs,
  inviteRole,
  validate,
} from "../shared/inputs";
import { configure, connection, settingsFailures, withHints, withWrite } from "./provider-runtime";
import { containsUnknown, isUnknown } from "../shared/unknown";

/** What an {@link IntegrationEntitlement} stores: its inputs, the member's email and status, and the last job. */
export interface IntegrationEntitlementOutputs extends IntegrationEntitlementInputs {
  email: string | null;
  status: string | null;
  /** The job of the last write this resource made (null when none was needed). */
  lastJobId: string | null;
}

type Props = Record<string, unknown>;

/** The resource id of a membership. */
const membershipId = (integrationId: string, userId: string) => `${integrationId}/${userId}`;

/** Splits `<integrationId>/<userId>`. */
function parseId(id: string): { integrationId: string; userId: string } {
  const [integrationId, userId, ...rest] = id.split("/");
  if (!integrationId || !userId || rest.length > 0) {
    throw new ConfigurationError(`"${id}" is not an IntegrationEntitlement id: expected <integrationId>/<userId>`, "id");
  }
  return { integrationId, userId };
}

/** Inputs with defaults applied and the entitlements as a sorted set (kept as is while unknown). */
function normalise(news: Props): IntegrationEntitlementInputs {
  const entitlements = news.entitlements;
  return defined({
    integrationId: news.integrationId,
    userId: news.userId,
    entitlements: Array.isArray(entitlements) && !containsUnknown(entitlements) ? entitlementSet(entitlements as string[]) : entitlements,
    role: news.role ?? DEFAULT_INTEGRATION_ROLE,
    adoptExisting: news.adoptExisting ?? false,
  }) as IntegrationEntitlementInputs;
}

function outputs(member: IntegrationUser, inputs: IntegrationEntitlementInputs, lastJobId: string | null): IntegrationEntitlementOutputs {
  return {
    integrationId: inputs.integrationId,
    userId: inputs.userId,
    entitlements: entitlementSet(member.entitlements),
    // The API reads "owner"/"collaborator"; when it does not say (or says something unknown),
    // the declared role stands.
    role: inviteRole(member.role) ?? inputs.role,
    adoptExisting: inputs.adoptExisting === true,
    email: member.email,
    status: member.status,
    lastJobId,
  };
}

const sameSet = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && JSON.stringify(entitlementSet(a)) === JSON.stringify(entitlementSet(b));

/** What a change of inputs means: which properties change, which force a replacement. */
function diffEntitlement(olds: Props, news: Props): pulumi.dynamic.DiffResult {
  const differs = (key: string, same: (a: unknown, b: unknown) => boolean) => isUnknown(news[key]) || !same(olds[key], news[key]);
  const moved = ["integrationId", "userId"].filter((key) => differs(key, (a, b) => a === b));
  const roleChanged = differs("role", (a, b) => (a ?? DEFAULT_INTEGRATION_ROLE) === (b ?? DEFAULT_INTEGRATION_ROLE));
  const entitlementsChanged = containsUnknown(news.entitlements) || !sameSet(olds.entitlements, news.entitlements);
  const replaces = [...moved, ...(roleChanged ? ["role"] : [])];
  return {
    changes: replaces.length > 0 || entitlementsChanged,
    replaces,
    // The API cannot change a member's role: the old membership goes first, then the invite
    // with the new role. Only needed when both point at the same membership.
    deleteBeforeReplace: roleChanged && moved.length === 0,
  };
}

const memberOrUndefined = (client: WorkspaceAccessClient, integrationId: string, userId: string) =>
  unlessNotFound(client.integrations.getUser(integrationId, userId));

/**
 * Waits for the job of a write the service accepted. Any failure but the job's own (a
 * {@link JobFailedError}: the write did not happen) leaves the write in flight: the error is
 * rethrown as it is, remembered with the job's id for {@link partialCreate}.
 */
async function finish(job: JobHandle): Promise<void> {
  try {
    await job.wait();
  } catch (error) {
    markUnfinished(error, job.id);
    throw error;
  }
}

/**
 * Invites the user and waits for the job, batched with the invitations of the same integration,
 * role and set that this process sends at about the same time (see `invite-batcher.ts`). When the
 * answer says the user is a member already (a 409), or an ambiguous failure leaves it unclear
 * whether the invitation landed, the member is read instead: an invitation is never re-sent
 * blindly. A failure while waiting for an accepted invitation's job is recorded with that job (see
 * {@link partialCreate}).
 *
 * Assumed (the contract is silent; the emulator does so): inviting a user who is already a
 * member of the integration answers 409.
 */
function invite(inputs: IntegrationEntitlementInputs): Promise<InviteOutcome> {
  const { integrationId, userId, entitlements, role } = inputs;
  return connection().invites.invite({ integrationId, userId, role, entitlements: entitlementSet(entitlements) });
}

/** The set of a member, for messages: `VIEWER, EDITOR`, or `none`. */
const describeSet = (ids: readonly string[]) => (ids.length > 0 ? ids.join(", ") : "none");

/**
 * A create found the user a member already and may not take the membership over: nothing was
 * written, and the message names what the member holds and the ways forward.
 */
function existingMembershipError(member: IntegrationUser, inputs: IntegrationEntitlementInputs): ConfigurationError {
  const { integrationId, userId } = inputs;
  const current = inviteRole(member.role);
  const roleHint = current !== undefined && current !== inputs.role ? ` and role: "${current}"` : "";
  return new ConfigurationError(
    `User ${userId}${member.email ? ` (${member.email})` : ""} is already a member of integration ${integrationId}, with role ${member.role ?? "unknown"} and entitlements ${describeSet(member.entitlements)}. ` +
      "Creating this resource would take that access over: its entitlements would become the declared set, and destroying the resource would remove the user from the integration. Nothing was changed. " +
      `To manage the existing membership with this resource, set adoptExisting: true${roleHint}; to leave it alone, remove this resource from the program.`,
    "adoptExisting",
  );
}

/** A create over a member whose role is not the declared one: the API cannot change it in place. */
function roleMismatch(member: IntegrationUser, inputs: IntegrationEntitlementInputs): ConfigurationError | undefined {
  const current = inviteRole(member.role);
  if (current === undefined || current === inputs.role) return undefined;
  return new ConfigurationError(
    `User ${inputs.userId} is already a member of integration ${inputs.integrationId} as ${current}, but the resource declares role ${inputs.role}. The API cannot change a member's role in place: declare role: "${current}" to manage the membership as it is, or remove the member first.`,
    "role",
  );
}

/** Makes an existing member hold exactly the declared set: one `PATCH` when it differs, nothing when it matches. */
async function setExisting(
  client: WorkspaceAccessClient,
  member: IntegrationUser,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; jobId: string | null }> {
  if (sameSet(member.entitlements, inputs.entitlements)) return { member, jobId: null };
  const job = await client.integrations.setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements);
  await finish(job);
  // The member was read before the write; the finished job wrote exactly this set.
  return { member: { ...member, entitlements: entitlementSet(inputs.entitlements) }, jobId: job.id };
}

/** The member after an invitation, for what only the service knows (email, status). */
async function memberAfterInvite(client: WorkspaceAccessClient, inputs: IntegrationEntitlementInputs): Promise<IntegrationUser> {
  const { integrationId, userId } = inputs;
  const member = await memberOrUndefined(client, integrationId, userId);
  if (!member) {
    throw new WorkspaceAccessError(
      `The job for ${membershipId(integrationId, userId)} finished, but the user is not a member of the integration: check the integration in the workspace.`,
      { kind: "invalid_response" },
    );
  }
  return member;
}

/**
 * A create: learns whether the user is a member before writing anything (see `member-lookup.ts`),
 * never from how an invitation is answered. A member is taken over only with `adoptExisting`
 * (and the declared role): the declared set is applied, nothing written when it matches. A user
 * who is not a member is invited; when the invitation says otherwise (a 409: the user became a
 * member since the read), the same rules apply. After the invitation's job, a lone create reads
 * the member once for its email and status; creates that shared a member list do not (that would
 * cost a request each), and leave email and status `null` until the next refresh.
 */
async function createMembership(
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; existed: boolean; jobId: string | null }> {
  const { client, cache } = connection();
  const adopt = async (member: IntegrationUser) => {
    if (!inputs.adoptExisting) throw existingMembershipError(member, inputs);
    const mismatch = roleMismatch(member, inputs);
    if (mismatch) throw mismatch;
    return { ...(await setExisting(client, member, inputs)), existed: true };
  };
  const { member: existing, shared } = await cache.memberBeforeCreate(inputs.integrationId, inputs.userId);
  if (existing) return adopt(existing);
  const invited = await invite(inputs);
  if ("member" in invited) {
    // Found a member after a failed or unanswered invitation with another role than invited:
    // someone else added them meanwhile, so the adoption rules apply.
    if (invited.existed || roleMismatch(invited.member, inputs)) return adopt(invited.member);
    // An ambiguous invitation that landed: the membership is this create's own.
    return { ...(await setExisting(client, invited.member, inputs)), existed: false };
  }
  const member: IntegrationUser = shared
    ? {
        id: inputs.userId,
        email: null,
        firstName: null,
        lastName: null,
        isGuest: null,
        status: null,
        role: null,
        entitlements: inputs.entitlements,
        dynamicFields: {},
      }
    : await memberAfterInvite(client, inputs);
  return { member, existed: false, jobId: invited.jobId };
}

/**
 * Makes the membership hold exactly `inputs.entitlements` on an update resuming a partial create,
 * or restoring a membership removed out of band: reads the member, invites a user who is not a
 * member, replaces the set of one who is (when it differs), and waits for the job.
 */
async function converge(inputs: IntegrationEntitlementInputs): Promise<{ member: IntegrationUser; jobId: string | null }> {
  const { client } = connection();
  let member = await memberOrUndefined(client, inputs.integrationId, inputs.userId);
  if (!member) {
    const invited = await invite(inputs);
    if ("jobId" in invited) return { member: await memberAfterInvite(client, inputs), jobId: invited.jobId };
    member = invited.member;
  }
  // A member holding another role than this resource invites with was not made by its invitation:
  // someone else's, taken over only by the adoption rules (as at create).
  const mismatch = roleMismatch(member, inputs);
  if (mismatch) throw inputs.adoptExisting ? mismatch : existingMembershipError(member, inputs);
  return setExisting(client, member, inputs);
}

/** A partial create (recorded with no entitlements) whose invitation job is known. */
const pendingJobOf = (props: Partial<IntegrationEntitlementOutputs> | undefined): string | undefined =>
  props && Array.isArray(props.entitlements) && props.entitlements.length === 0 && typeof props.lastJobId === "string"
    ? props.lastJobId
    : undefined;

/** Whether a job has not ended (a job that cannot be read has: the member list tells then). */
async function stillRunning(client: WorkspaceAccessClient, jobId: string): Promise<boolean> {
  const job = await unlessNotFound(client.jobs.get(jobId));
  return job !== undefined && job.status !== "finished" && job.status !== "error";
}

/**
 * The error as the host turns it into a partial create, when the invitation may still land: it
 * was raised while waiting for an accepted write's job (see {@link finish}), or the invitation
 * failed without an answer and the user was not found a member since. The resource is recorded
 * (with no entitlements known, no email or status, and the job when there is one), so the next
 * `pulumi up` resumes with an update that waits for the job, reads the member, and takes over the
 * membership its own invitation made instead of failing on it as someone else's. Any other error
 * is returned as it is.
 */
function partialCreate(error: unknown, news: Props, inputs: IntegrationEntitlementInputs): unknown {
  const jobId = unfinishedJobOf(error);
  if (!(error instanceof Error) || jobId === undefined) return error;
  return Object.assign(error, {
    id: membershipId(inputs.integrationId, inputs.userId),
    properties: { ...inputs, entitlements: [], email: null, status: null, lastJobId: jobId, __provider: news.__provider },
    reasons: [error.message],
  });
}

export const provider: pulumi.dynamic.ResourceProvider<Props, IntegrationEntitlementOutputs> = {
  configure,

  async check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult<Props>> {
    const failures = [...settingsFailures(), ...validate(integrationEntitlementInputs, news)];
    // Valid inputs and settings, and an entitlement set that is new: are they in the integration's catalogue?
    if (failures.length === 0) failures.push(...(await unofferedEntitlements(olds, news)));
    return { inputs: { ...normalise(news) }, failures };
  },

  async diff(_id: string, olds: IntegrationEntitlementOutputs, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return diffEntitlement(olds as unknown as Props, news);
  },

  async create(news: Props): Promise<pulumi.dynamic.CreateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return withWrite(
      async () => {
        try {
          const { member, existed, jobId } = await createMembership(inputs);
          if (existed) claim(memberClaim(inputs.integrationId, inputs.userId));
          return { id: membershipId(inputs.integrationId, inputs.userId), outs: outputs(member, inputs, jobId) };
        } catch (error) {
          throw partialCreate(error, news, inputs);
        }
      },
      inputs.integrationId,
      inputs.userId,
    );
  },

  async read(id: string, props?: IntegrationEntitlementOutputs): Promise<pulumi.dynamic.ReadResult<IntegrationEntitlementOutputs>> {
    const { integrationId, userId } = parseId(id);
    return withHints(async () => {
      const member = await connection().cache.member(integrationId, userId);
      if (!member) {
        // A partial create whose invitation is still running is kept as it is: dropping it would
        // have the next up invite the user a second time, and lose the job to wait for.
        const jobId = pendingJobOf(props);
        if (props && jobId !== undefined && (await stillRunning(connection().client, jobId))) {
          const { email: _e, status: _s, lastJobId: _j, ...inputs } = props;
          return { id, props, inputs: inputs as IntegrationEntitlementOutputs };
        }
        return { id: "", props: {} as IntegrationEntitlementOutputs };
      }
      const declared = {
        integrationId,
        userId,
        entitlements: [],
        role: props?.role ?? DEFAULT_INTEGRATION_ROLE,
        adoptExisting: props?.adoptExisting === true,
      };
      const outs = outputs(member, declared, props?.lastJobId ?? null);
      const { email: _e, status: _s, lastJobId: _j, ...inputs } = outs;
      return { id, props: outs, inputs: inputs as IntegrationEntitlementOutputs };
    });
  },

  async update(
    _id: string,
    olds: IntegrationEntitlementOutputs,
    news: Props,
  ): Promise<pulumi.dynamic.UpdateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return withWrite(
      async () => {
        // A partial create is recorded with no entitlements (a resource always declares some).
        const partial = !Array.isArray(olds.entitlements) || olds.entitlements.length === 0;
        if (!partial) {
          // The usual update: replace the set and wait; the member is known from the last outputs,
          // so no read before or after. A member removed out of band (404) falls through to a full
          // converge, which invites again.
          const { client } = connection();
          const job = await unlessNotFound(client.integrations.setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements));
          if (job) {
            await job.wait();
            return { outs: { ...olds, ...inputs, lastJobId: job.id ?? olds.lastJobId ?? null } };
          }
        }
        // A create whose job was not seen to finish was recorded with that job: give it its time
        // first, so this up does not invite the user a second time while the first invitation is
        // merely slow.
        // A job still running after that second wait is taken as stuck: converge invites again.
        if (partial && olds.lastJobId) await settle(connection().client, [olds.lastJobId]);
        try {
          const { member, jobId } = await converge(inputs);
          return { outs: outputs(member, inputs, jobId ?? olds.lastJobId ?? null) };
        } catch (error) {
          // This write's own job, if one is left in flight, is recorded in turn.
          throw partialCreate(error, news, inputs);
        }
      },
      inputs.integrationId,
      inputs.userId,
    );
  },

  async delete(id: string, props?: IntegrationEntitlementOutputs): Promise<void> {
    // A replacement took the same membership over in this deployment: removing the user now
    // would undo it.
    const { integrationId, userId } = parseId(id);
    if (isClaimed(memberClaim(integrationId, userId))) return;
    await withWrite(
      async () => {
        // A partial create's invitation may still land after a removal that found nobody: it is
        // waited for first, and while it still runs the delete fails (the resource stays).
        const jobId = pendingJobOf(props);
        if (jobId !== undefined && (await settle(connection().client, [jobId])).length > 0) {
          throw new Error(
            `The invitation's job ${jobId} of user ${userId} to integration ${integrationId} is still running after another wait, so the user may still become a member: run the destroy again once it has finished (this resource stays in the stack until then; if the job is stuck, check the member in the service, then pulumi state delete this resource).`,
          );
        }
        // Already gone (404) counts as done.
        const job = await unlessNotFound(connection().client.integrations.removeUser(integrationId, userId));
        await job?.wait();
      },
      integrationId,
      userId,
    );
  },
};
