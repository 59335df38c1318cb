/**
 * The dynamic provider of {@link IntegrationEntitlement}, loaded by name in the dynamic-provider
 * host (`pulumi-workspace-access/provider/integration-entitlement`). The resource id is
 * `<integrationId>/<userId>`. Which HTTP call backs each operation (every write answers with a
 * job, awaited until it is `finished`):
 *
 * | operation | request |
 * |---|---|
 * | check, diff | none |
 * | create | `POST /integrations/{id}/users` (invite), `GET /jobs/{jobId}` until done, then `GET /integrations/{id}/users/{userId}` (email, status); when the invite answers 409 (a member already), that `GET` and, when the set differs, `PATCH /integrations/{id}/users/{userId}` (replace the set) and its job |
 * | update | `PATCH /integrations/{id}/users/{userId}` and its job; after a partial create, `GET /jobs/{jobId}` for its recorded job until done, then the member, then invite or `PATCH` as above |
 * | read | `GET /integrations/{id}/users/{userId}`, or one `GET /integrations/{id}/users` list shared by the reads of a refresh |
 * | delete | `DELETE /integrations/{id}/users/{userId}`, then the job; 404 means already gone |
 *
 * Once the service has accepted a write of a create (or of an update resuming one) and answered
 * with a job, a failure while waiting for that job, other than the job itself failing (a timeout,
 * or polling that still fails after the client's retries), records the resource as partially
 * created with that job: the next `pulumi up` waits for the job instead of inviting again.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ConfigurationError,
  ConflictError,
  type IntegrationUser,
  isAmbiguous,
  JobFailedError,
  type JobHandle,
  JobTimeoutError,
  NotFoundError,
  unlessNotFound,
  type WorkspaceAccessClient,
  WorkspaceAccessError,
} from "../client";
import { claim, isClaimed } from "./claims";
import {
  DEFAULT_INTEGRATION_ROLE,
  defined,
  entitlementSet,
  type IntegrationEntitlementInputs,
  integrationEntitlementInputs,
  inviteRole,
  validate,
} from "./inputs";
import { configure, connection, settingsFailures, withHints, withWrite } from "./provider-runtime";
import { containsUnknown, isUnknown } from "./unknown";

/** What an {@link IntegrationEntitlement} stores: its inputs, the member's email and status, and the last job. */
export interface IntegrationEntitlementOutputs extends IntegrationEntitlementInputs {
  email: string | null;
  status: string | null;
  /** The job of the last write this resource made (null when none was needed). */
  lastJobId: string | null;
}

type Props = Record<string, unknown>;

/** The resource id of a membership. */
export const membershipId = (integrationId: string, userId: string) => `${integrationId}/${userId}`;

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
    entitlements:
      Array.isArray(entitlements) && !containsUnknown(entitlements) ? entitlementSet(entitlements as string[]) : entitlements,
    role: news.role ?? DEFAULT_INTEGRATION_ROLE,
  }) as IntegrationEntitlementInputs;
}

function outputs(
  member: IntegrationUser,
  inputs: IntegrationEntitlementInputs,
  lastJobId: string | null,
): IntegrationEntitlementOutputs {
  return {
    integrationId: inputs.integrationId,
    userId: inputs.userId,
    entitlements: entitlementSet(member.entitlements),
    // The API reads "owner"/"collaborator"; when it does not say (or says something unknown),
    // the declared role stands.
    role: inviteRole(member.role) ?? inputs.role,
    email: member.email,
    status: member.status,
    lastJobId,
  };
}

const sameSet = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && JSON.stringify(entitlementSet(a)) === JSON.stringify(entitlementSet(b));

/** What a change of inputs means: which properties change, which force a replacement. */
export function diffEntitlement(olds: Props, news: Props): pulumi.dynamic.DiffResult {
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

/** The job each error was raised while waiting for, when the service had accepted the write (see {@link finish}). */
const unfinishedJobs = new WeakMap<Error, string>();

/**
 * Waits for the job of a write the service accepted. Any failure but the job's own (a
 * {@link JobFailedError}: the write did not happen) leaves the write in flight: the error is
 * rethrown as it is, remembered with the job's id for {@link partialCreate}.
 */
async function finish(job: JobHandle): Promise<void> {
  try {
    await job.wait();
  } catch (error) {
    if (error instanceof Error && !JobFailedError.isInstance(error)) unfinishedJobs.set(error, job.id);
    throw error;
  }
}

/**
 * Invites the user and waits for the job. When the answer says the user is a member already (a
 * 409), or an ambiguous failure leaves it unclear whether the invitation landed, the member is
 * read instead: an invitation is never re-sent blindly. Only the invitation's own failure is
 * handled so; once it was accepted, a failure while waiting for its job goes to the caller (see
 * {@link finish}).
 *
 * Assumed (the contract is silent; the emulator does so): inviting a user who is already a
 * member of the integration answers 409.
 */
async function invite(
  client: WorkspaceAccessClient,
  inputs: IntegrationEntitlementInputs,
): Promise<{ jobId: string } | { member: IntegrationUser; existed: boolean }> {
  const { integrationId, userId, entitlements, role } = inputs;
  let job: JobHandle;
  try {
    job = await client.integrations.invite(integrationId, { userIds: [userId], role, entitlements });
  } catch (error) {
    const member = ConflictError.isInstance(error) || isAmbiguous(error) ? await memberOrUndefined(client, integrationId, userId) : undefined;
    if (!member) throw error;
    return { member, existed: ConflictError.isInstance(error) };
  }
  await finish(job);
  return { jobId: job.id };
}

/**
 * Makes the membership hold exactly `inputs.entitlements`: invites a user who is not a member,
 * replaces the set of one who is (when it differs), and waits for the job. A create invites
 * straight away (nearly every create is of a new membership; the answer says when it is not); an
 * update resuming a create reads the member first.
 */
async function converge(
  inputs: IntegrationEntitlementInputs,
  creating: boolean,
): Promise<{ member: IntegrationUser; existed: boolean; jobId: string | null }> {
  const { client } = connection();
  const { integrationId, userId, entitlements, role } = inputs;
  let member = creating ? undefined : await memberOrUndefined(client, integrationId, userId);
  let existed = member !== undefined;
  let jobId: string | null = null;
  if (!member) {
    const invited = await invite(client, inputs);
    if ("jobId" in invited) jobId = invited.jobId;
    else ({ member, existed } = invited);
  }
  if (member) {
    const current = inviteRole(member.role);
    if (creating && existed && current !== undefined && current !== role) {
      throw new ConfigurationError(
        `User ${userId} is already a member of integration ${integrationId} as ${current}, but the resource declares role ${role}. The API cannot change a member's role in place: declare role: "${current}" to manage the membership as it is, or remove the member first.`,
        "role",
      );
    }
    if (!sameSet(member.entitlements, entitlements)) {
      const job = await client.integrations.setEntitlements(integrationId, userId, entitlements);
      jobId = job.id;
      await finish(job);
    }
    // The member was read before the write; the finished job wrote exactly this set.
    return { member: { ...member, entitlements: entitlementSet(entitlements) }, existed, jobId };
  }
  // After an invitation, one read for what only the service knows: the member's email and status.
  const final = await memberOrUndefined(client, integrationId, userId);
  if (!final) {
    throw new WorkspaceAccessError(
      `The job for ${membershipId(integrationId, userId)} finished, but the user is not a member of the integration: check the integration in the workspace.`,
      { kind: "invalid_response" },
    );
  }
  return { member: final, existed, jobId };
}

/**
 * Waits (up to `jobTimeoutSeconds` once more) for a job left running by an earlier deployment, so
 * a slow invitation is not sent twice. A job that failed, is gone, or is still running after that
 * second wait (stuck) changes nothing: the caller then converges, inviting again if need be.
 */
async function settle(jobId: string): Promise<void> {
  try {
    await connection().client.jobs.wait(jobId);
  } catch (error) {
    const ended = JobFailedError.isInstance(error) || NotFoundError.isInstance(error) || JobTimeoutError.isInstance(error);
    if (!ended) throw error;
  }
}

/**
 * The error as the host turns it into a partial create, when it was raised while waiting for an
 * accepted write's job (see {@link finish}): the resource is recorded (with no entitlements
 * known, no email or status, and that job), so the next `pulumi up` resumes with an update that
 * waits for the job instead of inviting again. Any other error is returned as it is.
 */
function partialCreate(error: unknown, news: Props, inputs: IntegrationEntitlementInputs): unknown {
  const jobId = error instanceof Error ? unfinishedJobs.get(error) : undefined;
  if (!(error instanceof Error) || jobId === undefined) return error;
  return Object.assign(error, {
    id: membershipId(inputs.integrationId, inputs.userId),
    properties: { ...inputs, entitlements: [], email: null, status: null, lastJobId: jobId, __provider: news.__provider },
    reasons: [error.message],
  });
}

export const provider: pulumi.dynamic.ResourceProvider<Props, IntegrationEntitlementOutputs> = {
  configure,

  async check(_olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult<Props>> {
    return { inputs: { ...normalise(news) }, failures: [...settingsFailures(), ...validate(integrationEntitlementInputs, news)] };
  },

  async diff(_id: string, olds: IntegrationEntitlementOutputs, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return diffEntitlement(olds as unknown as Props, news);
  },

  async create(news: Props): Promise<pulumi.dynamic.CreateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return withWrite(async () => {
      try {
        const { member, existed, jobId } = await converge(inputs, true);
        if (existed) claim(`member:${membershipId(inputs.integrationId, inputs.userId)}`);
        return { id: membershipId(inputs.integrationId, inputs.userId), outs: outputs(member, inputs, jobId) };
      } catch (error) {
        throw partialCreate(error, news, inputs);
      }
    }, inputs.integrationId);
  },

  async read(id: string, props?: IntegrationEntitlementOutputs): Promise<pulumi.dynamic.ReadResult<IntegrationEntitlementOutputs>> {
    const { integrationId, userId } = parseId(id);
    return withHints(async () => {
      const member = await connection().cache.member(integrationId, userId);
      if (!member) return { id: "", props: {} as IntegrationEntitlementOutputs };
      const declared = { integrationId, userId, entitlements: [], role: props?.role ?? DEFAULT_INTEGRATION_ROLE };
      const outs = outputs(member, declared, props?.lastJobId ?? null);
      const { email: _e, status: _s, lastJobId: _j, ...inputs } = outs;
      return { id, props: outs, inputs: inputs as IntegrationEntitlementOutputs };
    });
  },

  async update(_id: string, olds: IntegrationEntitlementOutputs, news: Props): Promise<pulumi.dynamic.UpdateResult<IntegrationEntitlementOutputs>> {
    const inputs = normalise(news);
    return withWrite(async () => {
      const partial = olds.email === null && olds.status === null;
      if (!partial) {
        // The usual update: replace the set and wait; the member is known from the last outputs,
        // so no read before or after. A member removed out of band (404) falls through to a full
        // converge, which invites again.
        const { client } = connection();
        const job = await unlessNotFound(client.integrations.setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements));
        if (job) {
          await job.wait();
          return { outs: { ...olds, ...inputs, lastJobId: job.id } };
        }
      }
      // A create whose job was not seen to finish was recorded with that job: give it its time
      // first, so this up does not invite the user a second time while the first invitation is
      // merely slow.
      if (partial && olds.lastJobId) await settle(olds.lastJobId);
      try {
        const { member, jobId } = await converge(inputs, false);
        return { outs: outputs(member, inputs, jobId ?? olds.lastJobId ?? null) };
      } catch (error) {
        // This write's own job, if one is left in flight, is recorded in turn.
        throw partialCreate(error, news, inputs);
      }
    }, inputs.integrationId);
  },

  async delete(id: string): Promise<void> {
    // A replacement took the same membership over in this deployment: removing the user now
    // would undo it.
    if (isClaimed(`member:${id}`)) return;
    const { integrationId, userId } = parseId(id);
    await withWrite(async () => {
      // Already gone (404) counts as done.
      const job = await unlessNotFound(connection().client.integrations.removeUser(integrationId, userId));
      await job?.wait();
    }, integrationId);
  },
};
