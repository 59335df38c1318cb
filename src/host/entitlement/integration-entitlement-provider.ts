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
 * | create | first, whether the user is a member already: one `GET /integrations/{id}/users` list shared by the creates that arrive together, or `GET /integrations/{id}/users/{userId}` for a lone create (`member-lookup.ts`); a miss in a shared list is confirmed before any invitation (a second listing that agrees, or that GET: a list proves presence only). Not a member: `POST /integrations/{id}/users` (invite; one request and one job for the creates of the same integration, role and set that arrive together, see `invite-batcher.ts`), `GET /jobs/{jobId}` until done, then (a lone create only) `GET /integrations/{id}/users/{userId}` for email and status, which must show the role and set asked. A member: fails without `adoptExisting`, writing nothing; with it, `PATCH /integrations/{id}/users/{userId}` (replace the set) and its job when the set differs, nothing when it matches |
 * | update | `PATCH /integrations/{id}/users/{userId}` and its job; after a partial create, `GET /jobs/{jobId}` for its recorded job until done, then the member, then invite or `PATCH` as above (a member with another role than declared was not made by the invitation: the adoption rules apply) |
 * | read | `GET /integrations/{id}/users/{userId}`, or one `GET /integrations/{id}/users` list shared by the reads of a refresh; a partial create whose member is not there yet: `GET /jobs/{jobId}` once, kept while the job runs. Not a member (404): `GET /integrations/{id}` once per integration, and a 404 there fails the refresh instead of forgetting the resource (the key may merely not be shown the integration) |
 * | delete | a partial create: first `GET /jobs/{jobId}` until done (fails, keeping the resource, while it still runs); then `DELETE /integrations/{id}/users/{userId}`, then the job; 404 means already gone |
 *
 * Once the service has accepted a write of a create (or of an update resuming one) and it was not
 * seen to finish (a timeout, polling that still fails after the client's retries, an answer lost),
 * the resource is recorded as partially created, `pending: true` with the job to wait for
 * (`pendingJobId`, null when none is known): the next `pulumi up` waits for the job instead of
 * inviting again. A state written before these fields existed recorded it as an empty set: read as pending.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ConfigurationError,
  type IntegrationUser,
  type JobHandle,
  unlessNotFound,
  type WorkspaceAccessClient,
  WorkspaceAccessError,
} from "../../client";
import { memberKey } from "../takeovers";
import { type InvitationResult, settle } from "../invite-batcher";
import { sameId } from "../ids";
import { afterJobWait, PartialWriteError } from "../partial-write";
import {
  DEFAULT_INTEGRATION_ROLE,
  defined,
  entitlementSet,
  type IntegrationEntitlementInputs,
  integrationEntitlementInputs,
  inviteRole,
  validate,
} from "../../shared/inputs";
import { type ProviderContext, providerOf } from "../provider-runtime";
import { withHints } from "../../shared/hints";
import { containsUnknown, isUnknown } from "../../shared/unknown";

/** What an {@link IntegrationEntitlement} stores: its inputs, the member's email and status, and the last job. */
export interface IntegrationEntitlementOutputs extends IntegrationEntitlementInputs {
  email: string | null;
  status: string | null;
  /** The job of the last write this resource made (null when none was needed). */
  lastJobId: string | null;
  /**
   * The last write (an invitation, or a set) may still land: it was accepted and not seen to finish.
   * The entitlements are then the ones asked, not known to be held. Missing in a state written
   * before it existed: see {@link pendingOf}.
   */
  pending?: boolean;
  /** The job of that pending write, to wait for before writing again; null when none is known (its answer was lost). */
  pendingJobId?: string | null;
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
    ...settled(member, inputs),
    lastJobId,
    pending: false,
    pendingJobId: null,
  };
}

function settled(member: IntegrationUser, inputs: IntegrationEntitlementInputs) {
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
  };
}

/**
 * Whether the state records a write that may still land, and its job: `pending: true` (with
 * `pendingJobId`), or, in a state written before those fields existed, an empty set (a resource
 * always declares some) with the job in `lastJobId`.
 */
export function pendingOf(props: Partial<IntegrationEntitlementOutputs> | undefined): { jobId: string | null } | undefined {
  if (!props) return undefined;
  if (props.pending === true) return { jobId: typeof props.pendingJobId === "string" ? props.pendingJobId : null };
  if (props.pending === undefined && Array.isArray(props.entitlements) && props.entitlements.length === 0) {
    return { jobId: typeof props.lastJobId === "string" ? props.lastJobId : null };
  }
  return undefined;
}

const sameSet = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && JSON.stringify(entitlementSet(a)) === JSON.stringify(entitlementSet(b));

/** What a change of inputs means: which properties change, which force a replacement. */
function diffEntitlement(olds: Props, news: Props): pulumi.dynamic.DiffResult {
  // A pending write is resumed by an update (the set it asked is not known to be held).
  const pending = pendingOf(olds) !== undefined;
  const differs = (key: string, same: (a: unknown, b: unknown) => boolean) => isUnknown(news[key]) || !same(olds[key], news[key]);
  // Ids compare case-insensitively: a service may answer them in another case than the program gave.
  const moved = ["integrationId", "userId"].filter((key) =>
    differs(key, (a, b) => a === b || (typeof a === "string" && typeof b === "string" && sameId(a, b))),
  );
  const roleChanged = differs("role", (a, b) => (a ?? DEFAULT_INTEGRATION_ROLE) === (b ?? DEFAULT_INTEGRATION_ROLE));
  const entitlementsChanged = containsUnknown(news.entitlements) || !sameSet(olds.entitlements, news.entitlements);
  const replaces = [...moved, ...(roleChanged ? ["role"] : [])];
  return {
    changes: replaces.length > 0 || entitlementsChanged || pending,
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
 * `JobFailedError`: the write did not happen) leaves the write in flight: a
 * {@link PartialWriteError} with the job, for {@link partialCreate}.
 */
async function finish(job: JobHandle): Promise<void> {
  try {
    await job.wait();
  } catch (error) {
    throw afterJobWait(error, job.id);
  }
}

/**
 * Invites the user and waits for the job, batched with the invitations of the same integration,
 * role and set that this process sends at about the same time (see `invite-batcher.ts`). When the
 * answer says the user is a member already (a 409), or an ambiguous failure leaves it unclear
 * whether the invitation landed, the member is read instead: an invitation is never re-sent
 * blindly. An invitation that may still land is thrown as a {@link PartialWriteError} with its job
 * (see {@link partialCreate}).
 *
 * Inviting a user who is already a member is not documented (409, a merge, or a failed job): the
 * create confirms the user is not one first, and reads the member back after the job.
 */
async function invite(ctx: ProviderContext, inputs: IntegrationEntitlementInputs): Promise<Exclude<InvitationResult, { kind: "pending" }>> {
  const { integrationId, userId, entitlements, role } = inputs;
  const result = await ctx.connection().invites.submit({ integrationId, userId, role, entitlements: entitlementSet(entitlements) });
  if (result.kind === "pending") throw new PartialWriteError(result.error, result.jobId);
  return result;
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

/**
 * The member after an invitation's job, for what only the service knows (email, status), and to
 * see what the job made: a service may merge an invitation into a membership that existed, so a
 * member whose role or set is not the one asked fails with what was found (nothing is recorded:
 * the next up finds the membership and applies the adoption rules).
 */
async function memberAfterInvite(
  client: WorkspaceAccessClient,
  inputs: IntegrationEntitlementInputs,
  jobId: string | null,
): Promise<IntegrationUser> {
  const { integrationId, userId } = inputs;
  const member = await memberOrUndefined(client, integrationId, userId);
  if (!member) {
    throw new WorkspaceAccessError(
      `The job for ${membershipId(integrationId, userId)} finished, but the user is not a member of the integration: check the integration in the workspace.`,
      { kind: "invalid_response" },
    );
  }
  const role = inviteRole(member.role);
  // A role the service does not say, or says in words this package does not know, is not a finding.
  const roleDiffers = role !== undefined && role !== inputs.role;
  if (roleDiffers || !sameSet(member.entitlements, inputs.entitlements)) {
    throw new WorkspaceAccessError(
      `After the invitation${jobId ? ` (job ${jobId})` : ""} of user ${userId} to integration ${integrationId}, the user is a member with role ${member.role ?? "unknown"} and entitlements ${describeSet(entitlementSet(member.entitlements))}, not role ${inputs.role} with ${describeSet(entitlementSet(inputs.entitlements))} as invited: the service may have merged the invitation into a membership that already existed. Nothing was recorded and nothing more was written: check the membership in the workspace; the next up treats it as an existing membership (adoptExisting decides).`,
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
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; existed: boolean; jobId: string | null }> {
  const { client, cache } = ctx.connection();
  const adopt = async (member: IntegrationUser) => {
    if (!inputs.adoptExisting) throw existingMembershipError(member, inputs);
    const mismatch = roleMismatch(member, inputs);
    if (mismatch) throw mismatch;
    return { ...(await setExisting(client, member, inputs)), existed: true };
  };
  const { member: existing, shared } = await cache.memberBeforeCreate(inputs.integrationId, inputs.userId);
  if (existing) return adopt(existing);
  const invited = await invite(ctx, inputs);
  if (invited.kind === "member") {
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
    : await memberAfterInvite(client, inputs, invited.jobId);
  return { member, existed: false, jobId: invited.jobId };
}

/**
 * Makes the membership hold exactly `inputs.entitlements` on an update resuming a partial create,
 * or restoring a membership removed out of band: reads the member, invites a user who is not a
 * member, replaces the set of one who is (when it differs), and waits for the job.
 */
async function converge(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; jobId: string | null }> {
  const { client } = ctx.connection();
  let member = await memberOrUndefined(client, inputs.integrationId, inputs.userId);
  if (!member) {
    const invited = await invite(ctx, inputs);
    if (invited.kind === "invited") return { member: await memberAfterInvite(client, inputs, invited.jobId), jobId: invited.jobId };
    member = invited.member;
  }
  // A member holding another role than this resource invites with was not made by its invitation:
  // someone else's, taken over only by the adoption rules (as at create).
  const mismatch = roleMismatch(member, inputs);
  if (mismatch) throw inputs.adoptExisting ? mismatch : existingMembershipError(member, inputs);
  return setExisting(client, member, inputs);
}

/** The inputs part of a state, as a read hands them back (outputs only left out). */
function inputsOf(props: IntegrationEntitlementOutputs): IntegrationEntitlementOutputs {
  const { email: _e, status: _s, lastJobId: _j, pending: _p, pendingJobId: _q, ...inputs } = props;
  return inputs as IntegrationEntitlementOutputs;
}

/** A refresh found no member, and the integration itself answers 404 to this key. */
function integrationNotVisible(integrationId: string, userId: string): ConfigurationError {
  return new ConfigurationError(
    `User ${userId} is not a member of integration ${integrationId} as far as this key can tell, but the integration itself answers 404 to this key: it was deleted, or this key is not shown it. The resource is kept, not forgotten (forgetting it would have the next up invite the user again). If the integration was deleted, remove the resource from the program and run pulumi state delete on it; otherwise use a key that may read the integration.`,
    "integrationId",
  );
}

/** Whether a job has not ended (a job that cannot be read has: the member list tells then). */
async function stillRunning(client: WorkspaceAccessClient, jobId: string): Promise<boolean> {
  const job = await unlessNotFound(client.jobs.get(jobId));
  return job !== undefined && job.status !== "finished" && job.status !== "error";
}

/**
 * The error as the host turns it into a partial create, when the write may still land (a
 * {@link PartialWriteError}: raised while waiting for an accepted write's job, see {@link finish},
 * or the invitation failed without an answer and the user was not found a member since). The
 * resource is recorded pending (the set asked, no email or status, the job when there is one), so
 * the next `pulumi up` resumes with an update that waits for the job, reads the member, and takes
 * over the membership its own invitation made instead of failing on it as someone else's. Any
 * other error is returned as it is.
 */
function partialCreate(error: unknown, news: Props, inputs: IntegrationEntitlementInputs, lastJobId: string | null): unknown {
  if (!PartialWriteError.isInstance(error)) return error;
  const state: IntegrationEntitlementOutputs = {
    ...inputs,
    entitlements: entitlementSet(inputs.entitlements),
    email: null,
    status: null,
    lastJobId: error.pendingJobId ?? lastJobId,
    pending: true,
    pendingJobId: error.pendingJobId,
  };
  return error.recordedAs({ id: membershipId(inputs.integrationId, inputs.userId), properties: { ...state, __provider: news.__provider } });
}

export const provider = providerOf<Props, IntegrationEntitlementOutputs>({
  async check(ctx: ProviderContext, olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult<Props>> {
    const failures = [...ctx.settingsFailures(), ...validate(integrationEntitlementInputs, news)];
    // Valid inputs and settings, and an entitlement set that is new: are they in the integration's catalogue?
    if (failures.length === 0) failures.push(...(await ctx.catalogue.unofferedEntitlements(olds, news)));
    return { inputs: { ...normalise(news) }, failures };
  },

  async diff(_ctx: ProviderContext, _id: string, olds: IntegrationEntitlementOutputs, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return diffEntitlement(olds as unknown as Props, news);
  },

  async create(ctx: ProviderContext, news: Props): Promise<pulumi.dynamic.CreateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return ctx.withWrite(
      async () => {
        try {
          const { member, existed, jobId } = await createMembership(ctx, inputs);
          if (existed) ctx.takeovers.take(memberKey(inputs.integrationId, inputs.userId));
          return { id: membershipId(inputs.integrationId, inputs.userId), outs: outputs(member, inputs, jobId) };
        } catch (error) {
          throw partialCreate(error, news, inputs, null);
        }
      },
      inputs.integrationId,
      inputs.userId,
    );
  },

  async read(
    ctx: ProviderContext,
    id: string,
    props?: IntegrationEntitlementOutputs,
  ): Promise<pulumi.dynamic.ReadResult<IntegrationEntitlementOutputs>> {
    const { integrationId, userId } = parseId(id);
    return withHints(async () => {
      const { cache, client } = ctx.connection();
      const member = await cache.member(integrationId, userId);
      if (!member) {
        // A partial create whose invitation is still running is kept as it is: dropping it would
        // have the next up invite the user a second time, and lose the job to wait for.
        const jobId = pendingOf(props)?.jobId;
        if (props && typeof jobId === "string" && (await stillRunning(client, jobId))) {
          return { id, props, inputs: inputsOf(props) };
        }
        // 404 also means "not disclosed to this key": forgetting every resource of an integration
        // the key cannot see would make the next up invite them all again.
        if (!(await cache.integrationVisible(integrationId))) throw integrationNotVisible(integrationId, userId);
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
      return { id, props: outs, inputs: inputsOf(outs) };
    });
  },

  async update(
    ctx: ProviderContext,
    _id: string,
    olds: IntegrationEntitlementOutputs,
    news: Props,
  ): Promise<pulumi.dynamic.UpdateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return ctx.withWrite(
      async () => {
        const pending = pendingOf(olds) ?? (Array.isArray(olds.entitlements) ? undefined : { jobId: null });
        if (!pending) {
          // The usual update: replace the set and wait; the member is known from the last outputs,
          // so no read before or after. A member removed out of band (404) falls through to a full
          // converge, which invites again.
          const { client } = ctx.connection();
          const job = await unlessNotFound(client.integrations.setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements));
          if (job) {
            await job.wait();
            return { outs: { ...olds, ...inputs, lastJobId: job.id ?? olds.lastJobId ?? null, pending: false, pendingJobId: null } };
          }
        }
        // A create whose job was not seen to finish was recorded with that job: give it its time
        // first, so this up does not invite the user a second time while the first invitation is
        // merely slow.
        // A job still running after that second wait is taken as stuck: converge invites again.
        if (pending?.jobId) await settle(ctx.connection().client, [pending.jobId]);
        try {
          const { member, jobId } = await converge(ctx, inputs);
          return { outs: outputs(member, inputs, jobId ?? olds.lastJobId ?? null) };
        } catch (error) {
          // This write's own job, if one is left in flight, is recorded in turn.
          throw partialCreate(error, news, inputs, olds.lastJobId ?? null);
        }
      },
      inputs.integrationId,
      inputs.userId,
    );
  },

  async delete(ctx: ProviderContext, id: string, props?: IntegrationEntitlementOutputs): Promise<void> {
    // A replacement took the same membership over in this deployment: removing the user now
    // would undo it.
    const { integrationId, userId } = parseId(id);
    if (ctx.takeovers.has(memberKey(integrationId, userId))) return;
    await ctx.withWrite(
      async () => {
        // A partial create's invitation may still land after a removal that found nobody: it is
        // waited for first, and while it still runs the delete fails (the resource stays).
        const jobId = pendingOf(props)?.jobId;
        if (typeof jobId === "string" && (await settle(ctx.connection().client, [jobId])).length > 0) {
          throw new Error(
            `The invitation's job ${jobId} of user ${userId} to integration ${integrationId} is still running after another wait, so the user may still become a member: run the destroy again once it has finished (this resource stays in the stack until then; if the job is stuck, check the member in the service, then pulumi state delete this resource).`,
          );
        }
        // Already gone (404) counts as done.
        const job = await unlessNotFound(ctx.connection().client.integrations.removeUser(integrationId, userId));
        await job?.wait();
      },
      integrationId,
      userId,
    );
  },
});
