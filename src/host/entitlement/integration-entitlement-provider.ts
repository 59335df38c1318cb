/**
 * The dynamic provider of {@link IntegrationEntitlement} (`pulumi-workspace-access/provider/integration-entitlement`).
 * The resource id is `<integrationId>/<userId>`. Which HTTP call backs each operation (a write answered with a job waits for it):
 *
 * | operation | request |
 * |---|---|
 * | check | `GET /integrations/{id}/entitlements`, once per integration, for a new or changed set (`entitlement-catalogue.ts`) |
 * | diff | none |
 * | create | is the user a member? the membership view: one shared `GET .../users` list, or `GET .../users/{userId}` alone |
 * | | not a member (a miss confirmed): `POST .../users` (batched, `invite-batcher.ts`), its job, then (alone) the member read back |
 * | | a member: refused without `adoptExisting`; else `PATCH .../users/{userId}` and its job when the set differs |
 * | | any 404: `GET /integrations/{id}` once (for every create of it); 404 too: the integration does not exist |
 * | create with `import` | `GET .../users/{userId}` (404 fails), then the adoption above |
 * | update | `PATCH .../users/{userId}` and its job; resuming a partial create: its job waited for, then the create's writes |
 * | | (a 404 of the writes: `GET /integrations/{id}` once; 404 too: the integration does not exist, the state kept) |
 * | read | the member from the view (a refresh's reads share one list); a pending write's job once; not a member: `GET /integrations/{id}` once |
 * | | (404: the integration gone, the resource dropped with a warning; an `IntegrationEntitlement.get`'s read fails instead, naming the id) |
 * | | (not a member, a pending write kept unless its job failed or is unknown; finished, with a warning: the next up reads the member) |
 * | delete | the member's role from the view (a destroy's reads share one list), then `DELETE .../users/{userId}` and its job (404: gone); |
 * | | a pending write's job first (the member gone, its job finished or none known: a warning that it may still land). |
 * | | Left unless `deleteOnDestroy`: an adopted membership, and a member made an owner the program did not declare; |
 * | | left always: a partial create's member holding another role than its invitation asked (someone else's) |
 * | | refused, nothing sent: a removal of the integration's last owner (an owner, or a role unknown, and no other owner listed); |
 * | | not asked under deleteOnDestroy of a member the state records as a collaborator (no read: the state's role is trusted) |
 * | | (a forced `--replace` then takes the member back: the create finds them, `ctx.leftInPlace`, and adopts them without `adoptExisting`) |
 * | | (one it removed, `ctx.removedRecords`, a replacement's create invites again, the program's `import` no longer applying) |
 *
 * A write accepted and not seen to finish (a timeout, an answer lost), or whose member cannot be read back after its job
 * finished, records a partial create (`partialCreate`); an update's own `PATCH` left in flight, the membership as it was with
 * that write pending (`patchLeftInFlight`).
 */
import { ConfigurationError, NotFoundError, sameId, unlessNotFound, type WorkspaceAccessClient } from "../../client";
import { hinted, withHints } from "../../shared/hints";
import { isUnknown, knownString } from "../../shared/unknown";
import {
  DEFAULT_INTEGRATION_ROLE,
  IMPORT_ID,
  type IntegrationEntitlementInputs,
  integrationEntitlementInputs,
  inviteRole,
  optInChanged,
  type Props,
  optIn,
  sameSet,
} from "../../shared/inputs";
import { afterJobWait, PartialWriteError, waitForPending } from "../membership/partial-write";
import {
  integrationAnswers,
  isWriteNotFound,
  lostInvitationsMayLand,
  requestOf,
  stillRunningOnDestroy,
  withKeySource,
} from "../membership/messages";
import { type ProviderContext, providerOf } from "../provider-runtime";
import { heldIn } from "../entitlement-catalogue";
import { memberKey } from "../takeovers";
import {
  declaredRoleChanged,
  changedEntitlementProperties,
  diffEntitlement,
  ignoredOfOne,
  type IntegrationEntitlementOutputs,
  inputsOf,
  membershipId,
  outputs,
  parseId,
} from "./entitlement-state";
import {
  adopt,
  afterInvitation,
  converge,
  type HeldFrom,
  heldFrom,
  invitationOf,
  otherRole,
  refuseLastOwner,
  usable,
  warnOf,
  type Written,
} from "./entitlement-writes";
import {
  adoptedMembershipLeft,
  adoptedRoleChange,
  importedOtherMembership,
  integrationDoesNotExist,
  integrationGone,
  invitationNotSeenYet,
  pendingWriteChanged,
  noMembershipToGet,
  noMembershipToImport,
  notInvitedMembershipLeft,
  ownerMembershipLeft,
  retainedMemberThere,
  retainedReplacement,
  roleUnknownMembership,
} from "./messages";

export type { IntegrationEntitlementOutputs } from "./entitlement-state";

/**
 * A pending write's job, read once (a refresh does not wait for it): `ended` when it failed or the service does not know it (what
 * it did, if anything, is not known to be the resource's, as `settleJob` takes it); `running` for any other status, or none.
 */
async function jobNow(client: WorkspaceAccessClient, jobId: string): Promise<"running" | "finished" | "ended"> {
  const job = await unlessNotFound(client.jobs.get(jobId));
  if (job === undefined || job.status === "error") return "ended";
  return job.status === "finished" ? "finished" : "running";
}

/** Whether `inputs` ask what the write the state records as pending asked (`olds`: its set, and its role where one is declared). */
const askedAlike = (olds: IntegrationEntitlementOutputs, inputs: IntegrationEntitlementInputs) =>
  sameSet(olds.entitlements, inputs.entitlements) && (inputs.role === undefined || inputs.role === olds.role);

/** A create with `import: "<integrationId>/<userId>"`: the membership must be the declared one and exist (404 fails, before any write). */
async function imported(ctx: ProviderContext, inputs: IntegrationEntitlementInputs, importId: string, held: HeldFrom) {
  const named = parseId(importId);
  const { integrationId, userId } = inputs;
  if (!sameId(named.integrationId, integrationId) || !sameId(named.userId, userId)) {
    throw new ConfigurationError(importedOtherMembership(importId, named, inputs), "import");
  }
  const member = usable(await ctx.connection().memberships.of(integrationId).read(userId), held);
  if (member) return member;
  throw new ConfigurationError(noMembershipToImport(inputs), "import");
}

/**
 * A create's or update's 404 (the invitation's POST, a PATCH whose member is gone, neither proven by the client as a read is):
 * the error to throw. The integration's own read (shared, `goneAfter`) tells whether it is gone (it does not exist), or the
 * 404 was another's: the user, or a key lacking the write's scopes (`integrationAnswers`). A PATCH that reaches here is an
 * adoption's, its member found just before it (the update's own PATCH is told apart by `converge`).
 */
async function writeNotFound(
  ctx: ProviderContext,
  { integrationId, userId }: IntegrationEntitlementInputs,
  error: NotFoundError,
  op: "create" | "update",
): Promise<Error> {
  if (!(await ctx.connection().memberships.of(integrationId).goneAfter(error)))
    return integrationAnswers(integrationId, error, userId, ctx.keySource, error.method === "PATCH");
  return new ConfigurationError(integrationDoesNotExist(integrationId, userId, requestOf(error), op), "integrationId");
}

/**
 * A write that may still land ({@link PartialWriteError}) recorded as a partial create (the set asked, the job), which the next up
 * resumes. `adopted`: the membership is known to have existed before (an `import`, or the state said so); with `adoptExisting`
 * it may have (an invitation or an adoption's set, not known which). Either way destroy leaves it.
 */
function partialCreate(
  error: unknown,
  news: Props,
  inputs: IntegrationEntitlementInputs,
  before: { lastJobId: string | null; adopted: boolean; email?: string | null; status?: string | null },
): unknown {
  // Not written, or recorded already (an update's own PATCH left in flight).
  if (!PartialWriteError.isInstance(error) || error.id !== undefined) return error;
  const state: IntegrationEntitlementOutputs = {
    ...inputs,
    email: before.email ?? null,
    status: before.status ?? null,
    lastJobId: error.pendingJobId ?? before.lastJobId,
    pendingInvitations: [{ userId: inputs.userId, jobId: error.pendingJobId }],
    adopted: before.adopted || inputs.adoptExisting === true,
    declaredRole: inputs.role ?? null,
  };
  return error.recordedAs({ id: membershipId(inputs.integrationId, inputs.userId), properties: { ...state, __provider: news.__provider } });
}

/**
 * An update's own `PATCH` left in flight (its job not seen to finish): recorded with the set asked and the job, pending as a
 * partial create's invitation is (the next `up` waits for it; a diff, even of a reverted set, is a change), but as the
 * membership it was: this resource's, `adopted` and the role it holds unchanged (the resume, a refresh and a destroy compare a
 * member found with that role, not an invitation's: an owner someone promoted is not taken for someone else's membership).
 */
function patchLeftInFlight(error: unknown, id: string, state: IntegrationEntitlementOutputs, news: Props): unknown {
  if (!PartialWriteError.isInstance(error)) return error;
  const pendingInvitations = [{ userId: state.userId, jobId: error.pendingJobId }];
  return error.recordedAs({ id, properties: { ...state, lastJobId: error.pendingJobId, pendingInvitations, __provider: news.__provider } });
}

export const provider = providerOf<Props, IntegrationEntitlementOutputs>({
  type: "IntegrationEntitlement",

  async check(ctx, olds, news) {
    if (knownString(news.integrationId) && knownString(news.userId)) ctx.declared.add(memberKey(news.integrationId, news.userId));
    const { inputs, failures } = ctx.checkInputs(integrationEntitlementInputs, news);
    // With adoptExisting, an id not offered passes only if the member holds it already (read only when one is named).
    const held = heldIn(() => ctx.connection().memberships.of(String(news.integrationId)), news);
    if (failures.length === 0) failures.push(...(await ctx.catalogue.unofferedEntitlements(olds, news, held)));
    return { inputs, failures };
  },

  changed: changedEntitlementProperties,

  // The member a create found there, with retainOnDelete: the one a replaced resource held, which the engine did not remove.
  retainedNote: (error) => (ConfigurationError.isInstance(error) && error.setting === "adoptExisting" ? retainedMemberThere() : undefined),

  async diff(ctx, _id, olds, news, replacing, retained) {
    const key = memberKey(olds.integrationId, olds.userId);
    // Only a diff of the program's resource, whose `check` ran in this deployment, plans a write: the engine diffs a refresh's
    // reads too (`pulumi refresh`, `up --refresh`, `destroy --refresh`, `refresh: always`), against the old inputs.
    const planned = ctx.declared.has(key);
    const found = diffEntitlement(olds, news, planned);
    const diff = replacing.length > 0 ? { ...found, replaces: [...new Set([...(found.replaces ?? []), ...replacing])] } : found;
    // A replacement of the same membership removes the member first, which the engine skips for a retained resource: the
    // invitation would find them still a member and fail, the old resource left marked for replacement. Refused before anything is sent.
    const replaced = (diff.replaces ?? []).filter((key) => key !== "role" || !isUnknown(news.role));
    if (planned && retained && replaced.length > 0 && !replaced.some((key) => key === "integrationId" || key === "userId")) {
      throw new ConfigurationError(retainedReplacement(olds, news.role, replaced), replaced.includes("role") ? "role" : "retainOnDelete");
    }
    // A role changes by removing the member first, which this resource never does to a membership it adopted: a replacement
    // would leave the member, then fail to invite them, the old state gone. Refused before anything is sent.
    if (planned && diff.deleteBeforeReplace && olds.adopted === true && olds.deleteOnDestroy !== true && !isUnknown(news.role)) {
      throw new ConfigurationError(adoptedRoleChange(olds, String(news.role)), "role");
    }
    // A declared role change removes the member first: the delete is the program's, even of an owner it never declared.
    if (planned && diff.deleteBeforeReplace) ctx.roleReplacements.add(key);
    // The membership this resource keeps managing: the delete of a resource it replaced under another name leaves it (`takeovers.ts`).
    if (planned && !diff.replaces?.length) ctx.takeovers.add(key);
    return diff;
  },

  async create(ctx, news) {
    const inputs = ctx.parseInputs(integrationEntitlementInputs, news);
    const { integrationId, userId } = inputs;
    // A replacement whose delete removed the membership in this deployment (a role change, a forced `--replace`, with
    // `deleteOnDestroy`) creates it anew: the program's `import` named the record the replaced resource held, which Pulumi
    // ignores once the resource is in the state. Taken, it would refuse the membership just removed as nothing to import.
    const importId = ctx.removedRecords.has(memberKey(integrationId, userId)) ? undefined : news[IMPORT_ID];
    return ctx.withWrite(
      async () => {
        try {
          let written: Written;
          const ignored = ignoredOfOne(news);
          // A record that leaves the set out: with `ignoreChanges` on it, the declared set is recorded, and nothing written.
          const held = heldFrom(ctx, inputs, ignored);
          if (typeof importId === "string")
            written = await adopt(ctx, inputs, await imported(ctx, inputs, importId, held), "import", undefined, ignored);
          else {
            const { member, shared } = await ctx.connection().memberships.of(integrationId).beforeCreate(userId);
            const existing = usable(member, held);
            // One this deployment's delete left in place (a forced `--replace`): taken back as the deleted resource held it.
            const left = ctx.leftInPlace.get(memberKey(integrationId, userId));
            if (existing && left) written = { ...(await adopt(ctx, inputs, existing, "kept", undefined, ignored)), existed: left.adopted };
            else if (existing) written = await adopt(ctx, inputs, existing, "create", undefined, ignored);
            else {
              const result = await ctx.connection().invites.submit(invitationOf(inputs));
              written = await afterInvitation(ctx, inputs, result, "create", shared, ignored);
            }
          }
          ctx.takeovers.add(memberKey(integrationId, userId));
          // A member again (a replacement's create after its delete): no longer counted gone by a removal's last-owner check.
          ctx.connection().memberships.of(integrationId).removing(userId, false);
          return { id: membershipId(integrationId, userId), outs: outputs(written.member, inputs, written.jobId, written.existed) };
        } catch (error) {
          if (NotFoundError.isInstance(error)) throw await writeNotFound(ctx, inputs, error, "create");
          // A 404 that is no miss (an adoption's PATCH whose member reads back there, invitations found refused to the key):
          // the setting holding the key named.
          if (isWriteNotFound(error)) throw withKeySource(error, ctx.keySource);
          // Recorded as a partial create, the membership may yet land: this resource's as well.
          if (PartialWriteError.isInstance(error)) ctx.takeovers.add(memberKey(integrationId, userId));
          // Adopted: imported, or taken back from a delete that left it as adopted (a forced `--replace`).
          const adopted = typeof importId === "string" || ctx.leftInPlace.get(memberKey(integrationId, userId))?.adopted === true;
          throw partialCreate(error, news, inputs, { lastJobId: null, adopted });
        }
      },
      integrationId,
      userId,
    );
  },

  async read(ctx, id, props, get) {
    const { integrationId, userId } = parseId(id);
    return withHints(
      async () => {
        const { memberships, client } = ctx.connection();
        const view = memberships.of(integrationId);
        // A record that leaves the set out keeps the set the state records: no diff, nor PATCH, on that alone.
        const member = usable(await view.member(userId), { integrationId, recorded: props?.entitlements, warn: warnOf(ctx) });
        if (!member) {
          // A partial create whose invitation still runs is kept: dropped, the next up would invite again and lose the job. So is
          // one whose answer was lost (no job known): it may land yet, and the next up's resume takes it as its own, where a
          // create would find someone else's membership.
          const pending = props?.pendingInvitations?.[0];
          const job = pending?.jobId ? await jobNow(client, pending.jobId) : undefined;
          if (props && pending && (pending.jobId === null || job === "running")) return { id, props, inputs: inputsOf(props) };
          // The integration gone (the client trusts its 404 once the key is shown integrations): dropped, as a membership gone is.
          // The next up's create then fails saying it does not exist, and the drop removes no one. A get has nothing
          // to drop: the program names a membership it expects.
          const there = await view.visible();
          if (get) throw new ConfigurationError(noMembershipToGet({ integrationId, userId }, there, get), "id");
          // Its job finished, the member not listed yet (a read lagging the service's jobs): what the create recorded the partial
          // create for, kept as a lost answer is, and said. It does not outlive the next up, which reads the member directly:
          // there, this resource's own; still not, the invitation did not make them, and it invites again (`converge`).
          if (props && pending?.jobId && job === "finished" && there) {
            ctx.warn(invitationNotSeenYet({ integrationId, userId }, pending.jobId));
            return { id, props, inputs: inputsOf(props) };
          }
          // A refresh of a `get`'s resource (no state) drops it as any refresh does: the program declares nothing to remove.
          if (!there && props) ctx.warn(integrationGone(integrationId, userId));
          return { id: "", props: {} as IntegrationEntitlementOutputs };
        }
        // A partial create's member holding another role was not made by its invitation: someone else's. Kept as recorded, the
        // next up's resume refuses it; taken as read, the role's diff would replace it, deleting that membership first.
        if (props?.pendingInvitations?.length && otherRole(member, props, true)) return { id, props, inputs: inputsOf(props) };
        // The declared role as the state records it (none without a state: an import's read). A state written before the record
        // hands back its role as before, and stays without it: its `role` is the service's, no proof of what was declared.
        const recorded = props !== undefined && "declaredRole" in props;
        const declared = {
          integrationId,
          userId,
          entitlements: [],
          role: recorded ? (props.declaredRole ?? undefined) : props ? (props.role ?? DEFAULT_INTEGRATION_ROLE) : undefined,
          adoptExisting: props?.adoptExisting === true,
          deleteOnDestroy: props?.deleteOnDestroy,
        };
        const outs = outputs(member, declared, props?.lastJobId ?? null, props?.adopted === true);
        if (props && !recorded) delete outs.declaredRole;
        return { id, props: outs, inputs: inputsOf(outs) };
      },
      ctx.keySource,
      !get,
    );
  },

  async update(ctx, id, olds, news) {
    const inputs = ctx.parseInputs(integrationEntitlementInputs, news);
    const adopted = olds.adopted === true;
    const { deleteOnDestroy: _, ...kept } = olds;
    const declaredRole = inputs.role ?? null;
    // Only what the state records changed (the destroy opt-in, the role declared or left out, the service's holding it): the
    // state learns it, nothing is sent.
    const recorded = optInChanged(olds, news) || declaredRoleChanged(olds, news);
    if (recorded && !diffEntitlement({ ...olds, declaredRole }, { ...news, deleteOnDestroy: olds.deleteOnDestroy }).changes) {
      return { outs: { ...kept, ...optIn(inputs.deleteOnDestroy), declaredRole, adopted } };
    }
    // What a write left in flight records (the state's own record kept): the next up resumes it.
    const before = { lastJobId: olds.lastJobId ?? null, adopted, email: olds.email, status: olds.status };
    return ctx.withWrite(
      async () => {
        const { client } = ctx.connection();
        try {
          // The PATCH's 404, which converge's read of the member tells apart: removed out of band, or there (not sent again).
          let patched: NotFoundError | undefined;
          // Its job failed and the member is not there: removed out of band, as a 404 would have said (read once, not again).
          let absent = false;
          if (!olds.pendingInvitations?.length) {
            // The member is known from the last outputs: no read. One removed out of band (404, or a job that failed and a read
            // that finds no member) falls through to converge.
            const job = await client.integrations
              .setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements)
              .catch((error: unknown) => {
                if (!NotFoundError.isInstance(error)) throw error;
                patched = error;
                return undefined;
              });
            // The membership as it stands after this PATCH: this resource's, its role and `adopted` as they were.
            const patchedState: IntegrationEntitlementOutputs = {
              ...kept,
              ...inputs,
              role: inputs.role ?? olds.role,
              declaredRole,
              lastJobId: job?.id ?? olds.lastJobId ?? null,
              pendingInvitations: [],
              adopted,
            };
            if (job) {
              try {
                await job.wait();
              } catch (error) {
                await ctx
                  .connection()
                  .memberships.of(inputs.integrationId)
                  .unlessGone(inputs.userId, error)
                  .catch((stands: unknown) => {
                    throw patchLeftInFlight(afterJobWait(stands, job.id), id, patchedState, news);
                  });
                absent = true;
              }
            }
            if (job && !absent) return { outs: patchedState };
          }
          // A create's job gets its time once more (a slow invitation is not sent twice). Still running, it is taken as stuck and
          // the user invited again, when the program asks what that write asked (a late landing grants the same). Asked otherwise,
          // a late landing would add what the program no longer declares, with nothing recorded: refused, the state kept.
          const { running } = await waitForPending(client, olds.pendingInvitations);
          const [stuck] = running;
          if (stuck && !askedAlike(olds, inputs)) throw new Error(pendingWriteChanged(inputs, stuck, olds.entitlements));
          const { member, jobId } = await converge(ctx, inputs, patched, absent, olds, ignoredOfOne(news));
          return { outs: outputs(member, inputs, jobId ?? olds.lastJobId ?? null, adopted) };
        } catch (error) {
          // Into an integration deleted since the state was written: said as a create says it, the resource kept (no removal).
          if (NotFoundError.isInstance(error)) throw await writeNotFound(ctx, inputs, error, "update");
          if (isWriteNotFound(error)) throw withKeySource(error, ctx.keySource);
          // This write's own job, if one is left in flight, is recorded in turn.
          throw partialCreate(error, news, inputs, before);
        }
      },
      inputs.integrationId,
      inputs.userId,
    );
  },

  async delete(ctx, id, props) {
    // A replacement took the same membership over in this deployment: removing the user would undo it.
    const { integrationId, userId } = parseId(id);
    const key = memberKey(integrationId, userId);
    if (ctx.takeovers.has(key)) return;
    // The member now, read once (one listing a destroy's deletes share): a refused key names where it comes from, as the writes'
    // errors do.
    const view = ctx.connection().memberships.of(integrationId);
    const keyNamed = (error: unknown) => Promise.reject(hinted(error, false, ctx.keySource));
    let found: ReturnType<typeof view.member> | undefined;
    const memberNow = () => (found ??= view.member(userId).catch(keyNamed));
    // A membership that existed before the stack adopted it is given back as it is.
    if (props?.adopted === true && props.deleteOnDestroy !== true) {
      ctx.warn(adoptedMembershipLeft(integrationId, userId, props?.email));
      ctx.leftInPlace.set(key, { adopted: true });
      return;
    }
    // A partial create's member holding another role than its invitation asked was not made by it: someone else's (as the read
    // and the resume take them), left as an adopted membership is, whatever the opt-in (as an IntegrationMembers' destroy leaves one).
    if (props?.pendingInvitations?.length && !ctx.roleReplacements.has(key)) {
      const member = await memberNow();
      if (member && !(member instanceof Error) && otherRole(member, props, true)) {
        ctx.warn(notInvitedMembershipLeft(integrationId, userId, member));
        ctx.leftInPlace.set(key, { adopted: true });
        return;
      }
    }
    // An owner the program did not make one (promoted since) is left, as a User's delete leaves a workspace owner, unless a
    // declared role change replaces the membership. A member whose record does not say the role (left out, unknown, unreadable)
    // may be that owner: the destroy fails, sending nothing, as an IntegrationMembers' removal of them does.
    const declaredOwner = props?.declaredRole === "account_owner";
    if (props?.deleteOnDestroy !== true && !declaredOwner && !ctx.roleReplacements.has(key)) {
      const member = await memberNow();
      const read = member instanceof Error ? undefined : member;
      const role = read ? inviteRole(read.role) : undefined;
      if (role === "account_owner") {
        ctx.warn(ownerMembershipLeft(integrationId, userId, read?.email ?? props?.email));
        ctx.leftInPlace.set(key, { adopted: props?.adopted === true });
        return;
      }
      if (member && role === undefined)
        throw new ConfigurationError(roleUnknownMembership(integrationId, userId, read?.email ?? props?.email), "role");
    }
    // Never the integration's last owner, whatever removes the member (a destroy, a replacement): refused before anything is sent.
    // A member the state records as a collaborator is checked on the read above alone: under deleteOnDestroy (no read), a
    // destroy of many non-owners sends no list for it, as before the check (a promotion since is known once a refresh records it).
    if (found !== undefined || props?.role !== "account_collaborator") await refuseLastOwner(view, userId, await memberNow(), keyNamed);
    await ctx
      .withWrite(
        async () => {
          // A partial create's invitation may land after a removal that found nobody: waited for; still running, the delete fails.
          const { running, finished } = await waitForPending(ctx.connection().client, props?.pendingInvitations);
          const [jobId] = running;
          if (jobId) {
            const which = `The invitation's job ${jobId} of user ${userId} to integration ${integrationId}`;
            throw new Error(
              stillRunningOnDestroy(
                which,
                "; if the job is stuck, check the member in the service, then pulumi state delete this resource",
              ),
            );
          }
          const job = await unlessNotFound(ctx.connection().client.integrations.removeUser(integrationId, userId));
          // Gone already: its 404, or its job failed and the member is not there (a service may accept the DELETE of a non-member).
          let gone = job === undefined;
          await job?.wait().catch(async (error: unknown) => {
            await ctx.connection().memberships.of(integrationId).unlessGone(userId, error);
            gone = true;
          });
          // Not there, its invitation's answer lost, or its job finished (a read lagging the service's jobs, as a refresh keeps
          // it): it may land yet, after the resource is gone.
          const mayLand = props?.pendingInvitations?.find((p) => p.jobId === null || finished.includes(p.jobId));
          if (gone && mayLand) ctx.warn(lostInvitationsMayLand(integrationId, [userId], "destroy", mayLand.jobId));
          // A replacement's create of it later in this deployment makes it anew (its `import` no longer applies).
          ctx.removedRecords.add(key);
        },
        integrationId,
        userId,
      )
      .catch((error: unknown) => {
        // Not removed: no longer counted gone by another removal's last-owner check.
        view.removing(userId, false);
        throw error;
      });
  },
});
