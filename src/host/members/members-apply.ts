/**
 * Carries out a members plan (`members-plan.ts`). Every write waits for its job; a failed write fails that member alone,
 * and the run records what the service then has, so that the state of a partial create or update is true.
 */
import { type Id, idOf } from "../../client/ids";
import {
  type ApiError,
  ConfigurationError,
  type IntegrationRole,
  NotFoundError,
  unlessNotFound,
  type WorkspaceAccessClient,
} from "../../client";
import type { ProviderContext } from "../provider-runtime";
import { memberKey } from "../takeovers";
import { type MemberInputs, sameSet } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";
import { PartialWriteError } from "../membership/partial-write";
import { type Actions, type Ignorable, type PlannedInvite, planOne } from "./members-plan";
import { integrationAnswers, integrationUnread, isWriteNotFound, requestOf, withKeySource } from "../membership/messages";
import { cannotReadBack, integrationDoesNotExist, jobUnread, notAMemberAfterJob, notAsInvited, stillRunning } from "./messages";
import { asPlanned, byKey, type IntegrationMembersOutputs, type Run, type ServiceMember } from "./members-state";
import type { MembershipView } from "../membership/membership-view";
import type { Submitted } from "../membership/invite-batcher";

/**
 * A run that starts from a plan: the members it keeps, and the invitations that may still land. `unread`: the recorded jobs
 * whose record cannot be read (`waitForEachPending`), their members failing saying so rather than that the job still runs.
 */
export function runOf(integrationId: string, acts: Actions, unread?: ReadonlyMap<string, Error>): Run {
  const run: Run = {
    integrationId,
    present: byKey(acts.present),
    managed: byKey(acts.managed),
    failures: [...acts.failures],
    pending: new Map(acts.pending.map((p) => [idOf(p.userId), p])),
    adopted: [...acts.takeOver],
  };
  for (const p of acts.stillRunning) {
    const why = p.jobId === null ? undefined : unread?.get(p.jobId);
    run.failures.push({ userId: p.userId, error: new Error(why ? jobUnread(p.jobId!, why, "not invited again") : stillRunning(p.jobId)) });
  }
  return run;
}

/** What a plan was made with that its writes need too: `unread` (see {@link runOf}), and what `ignoreChanges` names (`PlanInput.ignored`). */
export interface Applied {
  unread?: ReadonlyMap<string, Error> | undefined;
  ignored?: readonly Ignorable[] | undefined;
}

/**
 * Applies the writes of a plan (of operation `op`): removals, then invitations (role changes only once removed) and sets; the
 * run records what came of them, a write's 404 said as what it may be ({@link explainNotFound}).
 */
export async function applyPlan(
  ctx: ProviderContext,
  integrationId: string,
  acts: Actions,
  op: "create" | "update" | "delete",
  { unread, ignored = [] }: Applied = {},
): Promise<Run> {
  const run = runOf(integrationId, acts, unread);
  const planned = run.failures.length;
  const { client, memberships } = ctx.connection();
  const removed = new Set<string>();
  try {
    await Promise.all(
      acts.remove.map(async (id) => {
        if (await removeMember(client, memberships.of(integrationId), run, id)) removed.add(idOf(id));
      }),
    );
    const invites = acts.invite.filter((i) => !i.afterRemoval || removed.has(idOf(i.member.userId)));
    const [made] = await Promise.all([
      addMembers(ctx, run, invites, ignored),
      ...acts.setEntitlements.map((m) => setEntitlements(client, run, m)),
    ]);
    // A destroy only removes (a DELETE's 404 is done, or refused naming the key by the client).
    if (op !== "delete") await explainNotFound(ctx, run, planned, op);
    if (made.length > 0) await checkMade(memberships.of(run.integrationId), run, made);
    return run;
  } finally {
    // Each member this resource manages now, found or invited: the delete of a resource it replaced leaves them (`takeovers.ts`).
    for (const key of run.managed.keys()) ctx.takeovers.add(memberKey(run.integrationId, key));
  }
}

/**
 * Says what the writes' 404s among the run's failures (from index `from`) may be. A `PATCH` whose member the client read back
 * there (no {@link NotFoundError}) was refused for an entitlement or a key lacking its scopes, which it names: the setting holding
 * the key is added. Any other is told by the integration's own read, once for the operation (shared: `integrations.presence`,
 * which a batch's 404 may have asked already), and never on success: gone, it does not exist; there, the user or member, or the
 * key's write scopes (`integrationAnswers`: a `PATCH`'s member was found just before it, listed or after its invitation, so the
 * key holding the scopes, an entitlement of `members` is the likely cause); unread, each 404 is said with that read's failure,
 * nothing read as gone.
 */
async function explainNotFound(ctx: ProviderContext, run: Run, from: number, op: "create" | "update"): Promise<void> {
  const failed = run.failures.slice(from).filter((f) => isWriteNotFound(f.error));
  if (failed.length === 0) return;
  const { integrationId } = run;
  let presence: { gone: boolean } | { unread: unknown } = { gone: false };
  if (failed.some((f) => NotFoundError.isInstance(f.error))) {
    presence = await ctx
      .connection()
      .memberships.of(integrationId)
      .visible()
      .then(
        (there) => ({ gone: !there }),
        (unread: unknown) => ({ unread }),
      );
  }
  for (const failure of failed) {
    const error = failure.error;
    if (!NotFoundError.isInstance(error)) failure.error = withKeySource(error as ApiError, ctx.keySource);
    else if ("unread" in presence) failure.error = integrationUnread(integrationId, error, presence.unread);
    else if (presence.gone)
      failure.error = new ConfigurationError(integrationDoesNotExist(integrationId, requestOf(error), op), "integrationId");
    else failure.error = integrationAnswers(integrationId, error, failure.userId, ctx.keySource, error.method === "PATCH", "members");
  }
}

/** An invitation whose job finished, with that job. */
type Made = PlannedInvite & { jobId: string | null };

/**
 * Reads back what finished invitations made: a service may merge an invitation into a membership someone made meanwhile.
 * A member whose role or set is not what was asked fails, recorded as found; one a direct read does not find fails, recorded
 * pending with the job (the next up reads again); one whose record cannot be used is recorded as asked.
 */
async function checkMade(view: MembershipView, run: Run, made: readonly Made[]): Promise<void> {
  const userIds = made.map((i) => i.member.userId);
  // A record that cannot be used keeps what was invited: the job finished, and an empty set would fail the member.
  const invited = made.map(({ member, role }) => ({ userId: member.userId, entitlements: member.entitlements, role }));
  let found: Map<string, ServiceMember | null>;
  let unreadable: (key: Id) => boolean;
  try {
    const records = await view.find(userIds, run.present.size);
    unreadable = (key) => records.get(key) instanceof Error;
    found = asPlanned(records, invited);
  } catch (error) {
    for (const i of made) run.failures.push({ userId: i.member.userId, error: new Error(cannotReadBack(error)) });
    return;
  }
  for (const { member, role, jobId } of made) {
    const now = found.get(idOf(member.userId));
    if (now === null) {
      // Not there though the job finished (a read that lags the service's jobs, or a job that applied nothing): not a member to
      // record, nor to forget (a late landing would be taken for someone else's): a write that may still land, as if unanswered.
      const key = idOf(member.userId);
      run.present.delete(key);
      run.managed.set(key, { userId: member.userId, entitlements: [], role });
      run.pending.set(key, { userId: member.userId, jobId });
      const error = new Error(notAMemberAfterJob(run.integrationId, member.userId, jobId));
      run.failures.push({ userId: member.userId, error: new PartialWriteError(error, jobId) });
    }
    if (!now) continue;
    // Unreadable, the member holds the role this finished invitation gave, as far as anyone knows; a set the record leaves out,
    // the one asked (`asPlanned` holds it, as recorded).
    const entitlements = now.entitlements ?? member.entitlements;
    const state = { userId: member.userId, entitlements, role: unreadable(idOf(member.userId)) ? role : now.role };
    run.present.set(idOf(member.userId), { ...now, userId: member.userId });
    run.managed.set(idOf(member.userId), state);
    if ((now.role !== null && now.role !== role) || !sameSet(entitlements, member.entitlements)) {
      run.failures.push({
        userId: member.userId,
        error: notAsInvited(run.integrationId, member.userId, { role, entitlements: member.entitlements }, state),
      });
    }
  }
}

/** Removes a member and waits for the job; gone already (404, or a job that failed and a read that finds no member) counts as done. */
async function removeMember(client: WorkspaceAccessClient, view: MembershipView, run: Run, userId: string): Promise<boolean> {
  try {
    const job = await unlessNotFound(client.integrations.removeUser(run.integrationId, userId));
    await job?.wait().catch((error: unknown) => view.unlessGone(userId, error));
    run.present.delete(idOf(userId));
    run.managed.delete(idOf(userId));
    return true;
  } catch (error) {
    // Not removed: no longer counted gone by another removal's last-owner check.
    view.removing(userId, false);
    run.failures.push({ userId, error });
    return false;
  }
}

/** Replaces a member's set and waits for the job. */
async function setEntitlements(client: WorkspaceAccessClient, run: Run, target: IntegrationMemberState): Promise<void> {
  const { userId, entitlements } = target;
  try {
    const job = await client.integrations.setEntitlements(run.integrationId, userId, entitlements);
    await job.wait();
    run.managed.set(idOf(userId), { ...target });
    const live = run.present.get(idOf(userId));
    if (live) run.present.set(idOf(userId), { ...live, entitlements });
  } catch (error) {
    run.failures.push({ userId, error });
  }
}

/**
 * Invites the declared members the plan confirmed absent, together (batched by kind); returns those invited. One found a
 * member after all goes to {@link adoptFound} (`ignored`: what the plan took as the service has it); one that may still land
 * is recorded pending.
 */
async function addMembers(
  ctx: ProviderContext,
  run: Run,
  planned: readonly PlannedInvite[],
  ignored: readonly Ignorable[],
): Promise<Made[]> {
  if (planned.length === 0) return [];
  let results: Submitted[];
  const invitations = planned.map(({ member, role }) => ({
    integrationId: run.integrationId,
    userId: member.userId,
    role: role as IntegrationRole,
    entitlements: member.entitlements,
  }));
  try {
    results = await ctx.connection().invites.submitAll(invitations);
  } catch (error) {
    results = planned.map(() => ({ kind: "failed", error }));
  }
  const made: Made[] = [];
  const adoptions: Promise<void>[] = [];
  const warn = (message: string) => ctx.warn(message);
  planned.forEach((invite, i) => {
    const { member: declared, role } = invite;
    const key = idOf(declared.userId);
    const result = results[i]!;
    // A member again (invited after its removal, a role change): no longer counted gone by a removal's last-owner check.
    if (result.kind === "invited" || result.kind === "member")
      ctx.connection().memberships.of(run.integrationId).removing(declared.userId, false);
    if (result.kind === "invited") {
      // Recorded as asked until read back (see checkMade).
      const state = { userId: declared.userId, entitlements: declared.entitlements, role };
      run.managed.set(key, state);
      run.present.set(key, { ...state, email: null });
      made.push({ ...invite, jobId: result.jobId });
    } else if (result.kind === "pending") {
      // The invitation may still land: managed, with no set known, and recorded pending (its job, when one is known, waited
      // for next time; none known, a refresh still keeps the member, and the next up takes them as its own, not adopted).
      run.managed.set(key, { userId: declared.userId, entitlements: [], role });
      run.pending.set(key, { userId: declared.userId, jobId: result.jobId });
      run.failures.push({ userId: declared.userId, error: new PartialWriteError(result.error, result.jobId) });
    } else if (result.kind === "member") {
      // One record that cannot be taken fails that member alone.
      const adopted = async () => {
        // A record that leaves the set out holds what a listed one would: the declared set where `ignoreChanges` names it.
        const notice = { integrationId: run.integrationId, warn, declared: [declared], declaredSets: ignored.includes("entitlements") };
        const [held] = asPlanned(new Map([[key, result.member]]), [], notice).values();
        const found = { ...held!, userId: declared.userId };
        run.present.set(key, found);
        await adoptFound(ctx, run, { declared, role, ignored }, found, result.existed);
      };
      adoptions.push(adopted().catch((error: unknown) => void run.failures.push({ userId: declared.userId, error })));
    } else run.failures.push({ userId: declared.userId, error: result.error });
  });
  await Promise.all(adoptions);
  return made;
}

/**
 * A member found after an invitation (`role`: the one it asked; a 409, or a failed or unanswered one that landed), planned as a
 * member listed would be ({@link planOne}): someone else's is adopted unless a declared role differs (that member fails), and
 * only a declared set it does not hold is written; what `ignored` names is left as the service has it.
 */
async function adoptFound(
  ctx: ProviderContext,
  run: Run,
  { declared, role, ignored }: { declared: MemberInputs; role: string; ignored: readonly Ignorable[] },
  found: ServiceMember,
  existed: boolean,
): Promise<void> {
  const { userId } = declared;
  // A declared role the member does not hold throws (the invitation asked it: someone else made them), unless `ignored` names it.
  const { managed, setEntitlements: sets } = planOne(run.integrationId, declared, found, ignored);
  // Theirs before this resource (when it existed, or has another role than invited): what its destroy gives back.
  if (existed || (found.role !== null && found.role !== role)) run.adopted.push(userId);
  // A member's state, not the record found (its email is not state).
  for (const state of managed) run.managed.set(idOf(userId), state);
  for (const target of sets) await setEntitlements(ctx.connection().client, run, target);
}

/** The error of a run that had failures: `summary`, then every failed member named and why. */
export function failedError(run: Run, summary: string): Error & { reasons: string[] } {
  const reasons = run.failures.map((f) => `user ${f.userId}: ${f.error instanceof Error ? f.error.message : String(f.error)}`);
  return Object.assign(new Error(`${summary}: ${reasons.join("; ")}`, { cause: run.failures[0]?.error }), { reasons });
}

/** The error of a create or update that had failures; with `outputs`, the state so far goes with it (the engine records it). */
export function runError(run: Run, outputs?: IntegrationMembersOutputs, provider?: unknown): Error {
  const n = run.failures.length;
  const error = failedError(
    run,
    `${n} member change${n === 1 ? "" : "s"} of integration ${run.integrationId} failed (the others were made)`,
  );
  if (!outputs) return error;
  return Object.assign(error, { id: run.integrationId, properties: { ...outputs, __provider: provider } });
}
