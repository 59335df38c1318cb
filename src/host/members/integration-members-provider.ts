/**
 * The dynamic provider of {@link IntegrationMembers} (`pulumi-workspace-access/provider/integration-members`), whose id is
 * the integration id. Every operation plans (`members-plan.ts`) over the membership view, then writes (`members-apply.ts`):
 *
 * | operation | request |
 * |---|---|
 * | check | `GET /integrations/{id}/entitlements`, once per integration, when a set is new or changes (then members naming an id not offered are read) |
 * | diff | none (the plan from the state; a change that would remove the last owner fails) |
 * | create, `import` | the list; `POST .../users` per 100 new members of a role and set, its job, a read-back; `PATCH`es. Removes no one |
 * | | (a create's or import's list answering 404: `GET /integrations/{id}`; 404 too: the integration does not exist; there: the members withheld) |
 * | update | jobs left running waited for; the list; a `DELETE` per member dropped, shown unmanaged, or changing role; invitations; `PATCH`es |
 * | | (a member dropped whose invitation's job still runs, not there: kept pending, with a warning, and removed by the up that finds them) |
 * | | (the list answering 404: `GET /integrations/{id}`; 404 too: the integration does not exist, the state kept; there: the members withheld) |
 * | | (create or update: an invitation or `PATCH` answering 404, `GET /integrations/{id}` once; each member's failure says what is known) |
 * | read | the list; a 404 (trusted by the client once the key is shown integrations and users): `GET /integrations/{id}`, 404: gone, dropped with a warning |
 * | | (the read of an `IntegrationMembers.get`, with no state: every member, listings until two agree; an integration gone fails it, naming the id) |
 * | delete | jobs left running waited for; the list; a `DELETE` per managed member there, not adopted (unless `deleteOnDestroy`) or taken over |
 *
 * It manages the members in its state (invited, adopted or declared); everyone else is reported unmanaged. No operation
 * removes the last owner. When some writes fail, the others still happen, and the state records what the service then has.
 */
import type * as pulumi from "@pulumi/pulumi";
import { ConfigurationError, NotFoundError, WorkspaceAccessError } from "../../client";
import { idOf, sameId } from "../../client/ids";
import { memberKey } from "../takeovers";
import { knownString } from "../../shared/unknown";
import { IMPORT_ID, type IntegrationMembersInputs, integrationMembersInputs, type Props, optIn } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";
import { waitForEachPending } from "../membership/partial-write";
import { applyPlan, failedError, runError, runOf } from "./members-apply";
import {
  adoptedMembersLeft,
  droppedMayLand,
  integrationDoesNotExist,
  jobUnread,
  integrationGone,
  membersNotComplete,
  membersNotDisclosed,
  noIntegrationToGet,
  noIntegrationToImport,
  notInvitedLeft,
  notTheDeclaredIntegration,
  ownersLeft,
} from "./messages";
import { lostInvitationsMayLand, requestOf, stillRunningOnDestroy } from "../membership/messages";
import type { MembershipView } from "../membership/membership-view";
import { type Members, PROOF_LISTINGS } from "../membership/member-list";
import { type Actions, type PlanInput, planMembers } from "./members-plan";
import { changedMembersProperties, declaredOf, diffMembers, ignoredOfMembers } from "./members-diff";
import { asPlanned, type IntegrationMembersOutputs, outputsOf, type ServiceMember } from "./members-state";
import { type ProviderContext, providerOf } from "../provider-runtime";
import { heldIn } from "../entitlement-catalogue";
import { KEPT_UNTIL_REFRESH, withHints } from "../../shared/hints";

export type { IntegrationMembersOutputs } from "./members-state";

/**
 * The plan against the service: one member list, then (only when the plan rests on an absence from it) its confirmations, and the
 * plan again. A read without state (a `get`'s, whose `members` is the whole set) takes its listing proven complete instead:
 * a member a shifting page skipped would be missing from the set (`op` names that read in the failure's message).
 */
async function planAgainstService(
  ctx: ProviderContext,
  base: Omit<PlanInput, "listed" | "confirmed">,
  recorded: readonly IntegrationMemberState[] = [],
  op: "get" | "refresh" | "import" = "refresh",
): Promise<Actions> {
  const view = ctx.connection().memberships.of(base.integrationId);
  const listing = base.op === "read" && !base.prior ? await wholeSet(view, base.integrationId, op) : await view.list();
  // A member recorded or declared (a read without state: every member) whose record leaves the set out is warned about, its
  // recorded set kept (`ignoreChanges` on the members: the declared set, none recorded); any other's is not known (`null`).
  const notice = {
    integrationId: base.integrationId,
    warn: (message: string) => ctx.warn(message),
    declared: base.declared,
    everyone: base.op === "read" && !base.prior,
    declaredSets: base.ignored?.includes("entitlements") === true,
  };
  const listed = asPlanned(listing, recorded, notice);
  let confirmed = new Map<string, ServiceMember | null>();
  // A removal's last-owner check counts gone those another removal of this process takes (an IntegrationEntitlement's destroy),
  // and this plan's removals are recorded among them in the turn of its check (forgotten by one that fails: `removeMember`).
  const removing = base.op === "update" || base.op === "delete" ? view.removals : undefined;
  for (;;) {
    const plan = planMembers({ ...base, listed, confirmed, ...(removing ? { removing } : {}) });
    if (plan.kind === "act" && removing) for (const userId of plan.remove) view.removing(userId);
    if (plan.kind === "act") return plan;
    confirmed = new Map([...confirmed, ...asPlanned(await view.confirm(listing, plan.userIds), recorded, notice)]);
  }
}

/** Every member of integration `integrationId`, from listings that agree; their disagreeing to the end fails the read (`op`). */
async function wholeSet(view: MembershipView, integrationId: string, op: "get" | "refresh" | "import"): Promise<Members> {
  const { listing, proven, error } = await view.provenList();
  if (proven) return listing;
  if (error !== undefined) throw error;
  const message = membersNotComplete(integrationId, PROOF_LISTINGS + 1, op);
  throw new WorkspaceAccessError(message, { kind: "invalid_response", method: "GET" });
}

/** Whether another resource of this deployment took the member over: no longer this one's to remove. */
const claimedIn = (ctx: ProviderContext, integrationId: string) => (userId: string) => ctx.takeovers.has(memberKey(integrationId, userId));

/**
 * A create's, import's or update's member list answered 404, proven by the client: the integration's own read tells gone from
 * withheld (as a refresh's does). The error to throw: withheld, saying so; gone, that it does not exist (an import of `importId`:
 * that there is none).
 * An update's 404 is no removal: the state keeps the resource, which a refresh drops.
 */
async function listNotFound(
  ctx: ProviderContext,
  id: string,
  error: NotFoundError,
  op: "create" | "import" | "update",
  importId = id,
): Promise<Error> {
  if (!(await ctx.connection().memberships.of(id).goneAfter(error))) return new Error(membersNotDisclosed(id, op), { cause: error });
  if (op === "import") return new ConfigurationError(noIntegrationToImport(importId), "import");
  return new ConfigurationError(integrationDoesNotExist(id, requestOf(error), op), "integrationId");
}

/** A create: declared members already there are adopted (a differing declared role fails it before any write), the others invited. */
async function create(ctx: ProviderContext, inputs: IntegrationMembersInputs, news: Props): Promise<IntegrationMembersOutputs> {
  const importId = news[IMPORT_ID];
  if (typeof importId === "string" && !sameId(importId, inputs.integrationId)) {
    throw new ConfigurationError(notTheDeclaredIntegration(importId, inputs.integrationId), "import");
  }
  const base = { op: "create" as const, integrationId: inputs.integrationId, declared: inputs.members, ignored: ignoredOfMembers(news) };
  let acts: Actions;
  try {
    acts = await planAgainstService(ctx, base);
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    // An import's too: a withheld list is no proof that there is nothing to import.
    if (typeof importId !== "string") throw await listNotFound(ctx, inputs.integrationId, error, "create");
    throw await listNotFound(ctx, inputs.integrationId, error, "import", importId);
  }
  const run = await applyPlan(ctx, inputs.integrationId, acts, "create", { ignored: base.ignored });
  const outputs = outputsOf(run, { ...declaredOf(inputs), adopted: run.adopted });
  if (run.failures.length === 0) return outputs;
  // Nothing managed (every write failed before it was accepted): no resource to record.
  if (run.managed.size === 0) throw run.failures.length === 1 ? run.failures[0]!.error : runError(run);
  throw runError(run, outputs, news.__provider);
}

/** An update: waits for invitations an earlier up left running, then plans and applies (see `members-plan.ts`). */
async function update(
  ctx: ProviderContext,
  olds: IntegrationMembersOutputs,
  inputs: IntegrationMembersInputs,
  news: Props,
): Promise<IntegrationMembersOutputs> {
  // A job whose record cannot be read counts as running: its member alone is neither invited again nor forgotten.
  const { running, unread } = await waitForEachPending(ctx.connection().client, olds.pendingInvitations);
  const base = {
    op: "update" as const,
    integrationId: inputs.integrationId,
    declared: inputs.members,
    removeUnmanaged: inputs.removeUnmanaged,
    prior: olds,
    claimed: claimedIn(ctx, inputs.integrationId),
    running: [...running, ...unread.keys()],
    keepUndeclaredOwners: inputs.deleteOnDestroy !== true,
    ignored: ignoredOfMembers(news),
  };
  let acts: Actions;
  try {
    acts = await planAgainstService(ctx, base, olds.members);
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    throw await listNotFound(ctx, inputs.integrationId, error, "update");
  }
  if (acts.keptOwners.length > 0) ctx.warn(ownersLeft(inputs.integrationId, acts.keptOwners));
  if (acts.notInvited.length > 0) ctx.warn(notInvitedLeft(inputs.integrationId, acts.notInvited));
  if (acts.droppedPending.length > 0) ctx.warn(droppedMayLand(inputs.integrationId, acts.droppedPending, new Set(unread.keys())));
  if (acts.droppedLost.length > 0) ctx.warn(lostInvitationsMayLand(inputs.integrationId, acts.droppedLost, "update"));
  const run = await applyPlan(ctx, inputs.integrationId, acts, "update", { unread, ignored: base.ignored });
  // What the destroy reads: who were members before (the state's record, and those this update took over).
  const outputs = outputsOf(run, { ...declaredOf(inputs), adopted: [...(olds.adoptedMembers ?? []), ...run.adopted] });
  if (run.failures.length > 0) throw runError(run, outputs, news.__provider);
  return outputs;
}

/**
 * A read: the member list, and a direct read of each managed member it misses before forgetting them. A 404 to the list
 * (confirmed by the client: the key is shown integrations and users) reads the integration: gone too, the resource is dropped
 * with a warning (removing no one; the next up's create fails saying it does not exist); there, the list is withheld and the refresh fails.
 * Without a state (an `IntegrationMembers.get`'s resource) every member is read into `members`; `get` (the get's own read, the
 * id as the program gave it): an integration gone fails the read, naming it.
 */
async function read(
  ctx: ProviderContext,
  id: string,
  props: IntegrationMembersOutputs | undefined,
  get: string | undefined,
): Promise<pulumi.dynamic.ReadResult<IntegrationMembersOutputs>> {
  const prior = props?.members ? props : undefined;
  // A state without members is none of the package's: the engine's import of the id (a get's resource's refresh has none at all).
  const op = get ? "get" : props !== undefined && !prior ? "import" : "refresh";
  let acts: Actions;
  try {
    acts = await planAgainstService(ctx, { op: "read", integrationId: id, prior }, props?.members, op);
  } catch (error) {
    if (!NotFoundError.isInstance(error)) throw error;
    // The integration's read failing is thrown naming the list's 404 too (`goneAfter`), nothing read as gone.
    if (!(await ctx.connection().memberships.of(id).goneAfter(error))) throw new Error(membersNotDisclosed(id, op), { cause: error });
    // A get has nothing to drop: the program names an integration it expects.
    if (get) throw new ConfigurationError(noIntegrationToGet(id, get), "id");
    // A refresh of a `get`'s resource (no state) drops it as any refresh does: the program declares nothing to remove.
    if (props) ctx.warn(integrationGone(id));
    return { id: "", props: {} as IntegrationMembersOutputs };
  }
  const run = runOf(id, acts);
  const declaredRoles = props?.declaredRoles;
  const removeUnmanaged = props?.removeUnmanaged === true;
  const kept = { removeUnmanaged, declaredRoles, declaredOwners: props?.declaredOwners, adopted: props?.adoptedMembers };
  const outs = outputsOf(run, { ...kept, deleteOnDestroy: props?.deleteOnDestroy });
  // A role only where the program declares one (a state without that record, an import: every known role): a refresh changes nothing else.
  const declared = declaredRoles === undefined ? undefined : new Set(declaredRoles.map(idOf));
  const inputs = {
    integrationId: id,
    members: outs.members.map((m) => ({
      userId: m.userId,
      entitlements: m.entitlements,
      ...(m.role !== null && (declared === undefined || declared.has(idOf(m.userId))) ? { role: m.role } : {}),
    })),
    removeUnmanaged: outs.removeUnmanaged,
    ...optIn(outs.deleteOnDestroy),
  };
  // Pulumi types a read's inputs as its outputs; these are the inputs (a member's role may be left out), so no type can say it.
  return { id, props: outs, inputs: inputs as unknown as IntegrationMembersOutputs };
}

/** A delete: removes every managed member there, not taken over or adopted; one whose invitation still runs fails it. */
async function destroy(ctx: ProviderContext, id: string, props: IntegrationMembersOutputs): Promise<void> {
  const { running, finished, unread } = await waitForEachPending(ctx.connection().client, props.pendingInvitations);
  // Members who were members before this resource managed them are given back as they are.
  const adopted = new Set(props.deleteOnDestroy === true ? [] : (props.adoptedMembers ?? []).map(idOf));
  const taken = claimedIn(ctx, id);
  const claimed = (userId: string) => taken(userId) || adopted.has(idOf(userId));
  let acts: Actions;
  try {
    const base = {
      op: "delete" as const,
      integrationId: id,
      prior: props,
      claimed,
      running: [...running, ...unread.keys()],
      keepUndeclaredOwners: props.deleteOnDestroy !== true,
    };
    acts = await planAgainstService(ctx, base, props.members);
  } catch (error) {
    // Gone with its integration (which answers 404 too): nothing left to remove. An integration that answers while its
    // member list does not is hidden from this key, not empty: forgetting its members would leave them their access.
    if (NotFoundError.isInstance(error)) {
      if (await ctx.connection().memberships.of(id).goneAfter(error)) return;
      throw new Error(membersNotDisclosed(id, "destroy"), { cause: error });
    }
    throw error;
  }
  const left = (props.adoptedMembers ?? []).filter(
    (userId) => adopted.has(idOf(userId)) && acts.present.some((m) => sameId(m.userId, userId)),
  );
  if (left.length > 0) ctx.warn(adoptedMembersLeft(id, left));
  if (acts.keptOwners.length > 0) ctx.warn(ownersLeft(id, acts.keptOwners));
  if (acts.notInvited.length > 0) ctx.warn(notInvitedLeft(id, acts.notInvited));
  // Not there (confirmed: they are this resource's), their invitation's answer lost, or its job finished (a read lagging the
  // service's jobs): it may land yet, after the resource is gone.
  const there = (userId: string) => acts.present.some((m) => sameId(m.userId, userId));
  const notThere = (props.pendingInvitations ?? []).filter((p) => !claimed(p.userId) && !there(p.userId));
  const lost = notThere.filter((p) => p.jobId === null).map((p) => p.userId);
  if (lost.length > 0) ctx.warn(lostInvitationsMayLand(id, lost));
  for (const jobId of finished) {
    const landed = notThere.filter((p) => p.jobId === jobId).map((p) => p.userId);
    if (landed.length > 0) ctx.warn(lostInvitationsMayLand(id, landed, "destroy", jobId));
  }
  const run = await applyPlan(ctx, id, { ...acts, stillRunning: [] }, "delete");
  // Each member's failure is theirs alone (the others are removed), but a destroy that fails records nothing: those it removed
  // stay in the state until a refresh reads them gone, and an `up` before it would take them for members.
  const removed = acts.remove.length - (run.failures.length - acts.failures.length);
  for (const p of acts.stillRunning) {
    const why = p.jobId === null ? undefined : unread.get(p.jobId);
    const error = why
      ? jobUnread(p.jobId!, why, "kept, and this resource stays in the stack")
      : stillRunningOnDestroy(`the invitation's job ${p.jobId}`);
    run.failures.push({ userId: p.userId, error: new Error(error) });
  }
  if (run.failures.length > 0) {
    const total = acts.remove.length + acts.stillRunning.length + acts.failures.length;
    const others = removed > 0 ? `the others were removed, ${removed}, whom ${KEPT_UNTIL_REFRESH}` : "no one was removed";
    throw failedError(run, `${run.failures.length} of ${total} members of integration ${id} could not be removed (${others})`);
  }
}

export const provider = providerOf<Props, IntegrationMembersOutputs>({
  type: "IntegrationMembers",

  async check(ctx, olds, news) {
    if (knownString(news.integrationId) && Array.isArray(news.members)) {
      for (const m of news.members as Array<{ userId?: unknown } | undefined>)
        if (knownString(m?.userId)) ctx.declared.add(memberKey(news.integrationId, m.userId));
    }
    const { inputs, failures } = ctx.checkInputs(integrationMembersInputs, news);
    const held = heldIn(() => ctx.connection().memberships.of(String(inputs.integrationId)), inputs);
    if (failures.length === 0) failures.push(...(await ctx.catalogue.unofferedMemberEntitlements(olds, news, held)));
    return { inputs, failures };
  },

  changed: changedMembersProperties,

  async diff(ctx, _id, olds, news, replacing) {
    // The program's inputs when its `check` ran in this deployment (it records each member it declares); else a refresh's diff.
    const declared = Array.isArray(news.members)
      ? (news.members as Array<{ userId?: unknown }>).some(
          (m) => knownString(m?.userId) && ctx.declared.has(memberKey(olds.integrationId, m.userId)),
        )
      : true;
    const found = diffMembers(olds, news, declared);
    const diff = replacing.length > 0 ? { ...found, replaces: [...new Set([...(found.replaces ?? []), ...replacing])] } : found;
    // The members this resource keeps managing (those the program declares): the delete of a resource it replaced under another
    // name leaves them (`takeovers.ts`).
    if (!diff.replaces?.length) {
      for (const { userId } of olds.members ?? []) {
        const key = memberKey(olds.integrationId, userId);
        if (ctx.declared.has(key)) ctx.takeovers.add(key);
      }
    }
    return diff;
  },

  async create(ctx, news) {
    const inputs = ctx.parseInputs(integrationMembersInputs, news);
    return ctx.withWrite(async () => ({ id: inputs.integrationId, outs: await create(ctx, inputs, news) }), inputs.integrationId);
  },

  async read(ctx, id, props, get) {
    return withHints(() => read(ctx, id, props, get), ctx.keySource, !get);
  },

  async update(ctx, _id, olds, news) {
    const inputs = ctx.parseInputs(integrationMembersInputs, news);
    return ctx.withWrite(async () => ({ outs: await update(ctx, olds, inputs, news) }), inputs.integrationId);
  },

  async delete(ctx, id, props) {
    await ctx.withWrite(() => destroy(ctx, id, props), id);
  },
});
