/**
 * The dynamic provider of {@link IntegrationMembers}, loaded by name in the dynamic-provider host
 * (`pulumi-workspace-access/provider/integration-members`). The resource id is the integration id.
 * Which HTTP call backs each operation (every write answers with a job, awaited until `finished`):
 *
 * | operation | request |
 * |---|---|
 * | check | zod (every failure names its property, `members[3].userId`); `GET /integrations/{id}/entitlements` once per integration and process, only when a member's entitlement set is new or changes (`entitlement-catalogue.ts`) |
 * | diff | none (the state's members, roles and unmanaged members; refuses a change that would remove the last owner) |
 * | create | `GET /integrations/{id}/users` (the member list, paged, once); `POST /integrations/{id}/users` per 100 new members of one role and set (`invite-batcher.ts`) and its job; `PATCH /integrations/{id}/users/{userId}` per declared member who is one already with another set. Removes no one |
 * | update | a wait for the invitation jobs an earlier `up` left running; the member list once; `DELETE .../users/{userId}` per member no longer declared (and, with `removeUnmanaged`, per unmanaged member the state lists: those the plan showed), and per member whose declared role changed as the plan showed it (a role the service changed unseen fails that member instead); then the invitations (batched) and one `PATCH` per member whose set changed |
 * | read | the member list once (a member whose invitation job is pending stays managed until they are a member) |
 * | delete | a wait for the invitation jobs an earlier `up` left running; the member list once (for the owner check); `DELETE .../users/{userId}` per managed member still there and not taken over by another resource in this deployment (`claims.ts`). Fails, keeping the resource, for a managed member whose invitation job is still running (they may join after) |
 *
 * The members this resource manages are those in its state (`members`): what it invited, adopted
 * or was declared with. Everyone else is unmanaged: reported, and removed only with
 * `removeUnmanaged: true`, by an update (so that a plan has shown them first). No operation
 * removes the last member with the owner role, nor, when no known owner would be left, a member
 * whose role is unknown (who may be the owner). When some writes of an operation fail, the others
 * still happen, and the state records what the service then has (a partial create or update): the
 * next `up` converges from there.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  ConfigurationError,
  type IntegrationRole,
  type IntegrationUser,
  NotFoundError,
  unlessNotFound,
  type WorkspaceAccessClient,
} from "../client";
import {
  DEFAULT_INTEGRATION_ROLE,
  defined,
  entitlementSet,
  type IntegrationMembersInputs,
  integrationMembersInputs,
  inviteRole,
  type MemberInputs,
  validate,
} from "../shared/inputs";
import { claim, isClaimed, memberClaim } from "./claims";
import type { IntegrationMemberState, UnmanagedIntegrationMember } from "../program/integration-members";
import { settle, unfinishedJobOf } from "./invite-batcher";
import { unofferedMemberEntitlements } from "./entitlement-catalogue";
import { memberList } from "./member-lookup";
import { configure, connection, settingsFailures, withHints, withWrite } from "./provider-runtime";
import { containsUnknown, isUnknown } from "../shared/unknown";

/** What an {@link IntegrationMembers} stores. */
export interface IntegrationMembersOutputs {
  integrationId: string;
  members: IntegrationMemberState[];
  removeUnmanaged: boolean;
  unmanagedMembers: UnmanagedIntegrationMember[];
  unfinishedJobIds: string[];
  /**
   * The members whose invitation was accepted but not seen to finish, each with its job: recorded
   * as managed with no set known, and not invited again while that job runs (it would invite them
   * twice). Missing in a state written before it existed: none.
   */
  pendingInvitations?: PendingInvitation[];
  /**
   * The members whose role the program declares (user ids, sorted). The others keep the
   * service's role: refresh reports it in `members` but not as a declared input, so it shows no change.
   * Missing in a state written before it existed: every role then counts as declared.
   */
  declaredRoles?: string[];
}

/** An invitation not seen to finish: whose, and its job. */
export interface PendingInvitation {
  userId: string;
  jobId: string;
}

type Props = Record<string, unknown>;
type Role = IntegrationRole;

const OWNER: Role = "account_owner";

const byUser = <T extends { userId: string }>(list: readonly T[]) => new Map(list.map((m) => [m.userId, m]));
const sortByUser = <T extends { userId: string }>(list: T[]) =>
  list.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));

/** Inputs with defaults applied, members sorted by user id and sets sorted (kept as they are while unknown). */
function normalise(news: Props): Props {
  const members = news.members;
  const known = Array.isArray(members) && !containsUnknown(members);
  return {
    integrationId: news.integrationId,
    members: known
      ? sortByUser(
          (members as MemberInputs[]).map((m) => ({
            userId: m.userId,
            entitlements: entitlementSet(m.entitlements),
            ...(m.role !== undefined ? { role: m.role } : {}),
          })),
        )
      : members,
    removeUnmanaged: news.removeUnmanaged ?? false,
  };
}
const sameSet = (a: readonly string[], b: readonly string[]) => JSON.stringify(entitlementSet(a)) === JSON.stringify(entitlementSet(b));

/** A member's state from the service's record. */
const stateOf = (member: IntegrationUser): IntegrationMemberState => ({
  userId: member.id,
  entitlements: entitlementSet(member.entitlements),
  role: inviteRole(member.role) ?? null,
});

/** Whether a declared member differs from its state: its set, or a declared role that is not the known one. */
function memberChanged(state: IntegrationMemberState | undefined, declared: MemberInputs): boolean {
  if (!state) return true;
  if (!sameSet(state.entitlements, declared.entitlements)) return true;
  return roleChanged(state.role, declared);
}

const roleChanged = (current: Role | string | null, declared: MemberInputs) =>
  declared.role !== undefined && current !== null && current !== declared.role;

/**
 * The members that would be removed (`removed`, out of `members`: everyone the integration has
 * now), refused when no member known to hold the owner role would be left and they include an
 * owner or a member whose role is unknown (`null`: a record that could not be read, or a role this
 * package does not know), who may be the owner. A role change from owner counts: the member is
 * removed before being invited again.
 */
function guardLastOwner(
  integrationId: string,
  members: Iterable<Pick<IntegrationMemberState, "userId" | "role">>,
  removed: ReadonlySet<string>,
): void {
  const all = [...byUser([...members]).values()];
  const owners = all.filter((m) => m.role === OWNER).map((m) => m.userId);
  if (owners.some((id) => !removed.has(id))) return;
  const unknown = all.filter((m) => m.role === null && removed.has(m.userId)).map((m) => m.userId);
  if (owners.length === 0 && unknown.length === 0) return;
  const users = (ids: readonly string[]) => (ids.length === 1 ? `user ${ids[0]}` : `users ${ids.join(", ")}`);
  const who = [
    ...(owners.length > 0 ? [`${users(owners)}, ${owners.length === 1 ? "the last member" : "every member"} with the owner role`] : []),
    ...(unknown.length > 0 ? [`${users(unknown)}, whose role is unknown,`] : []),
  ];
  const why =
    unknown.length > 0
      ? `no member known to hold the owner role would be left, and ${unknown.length === 1 ? "that user" : "those users"} may be its owner (a role is unknown when the service's record of the member could not be read, or names a role this package does not know). `
      : "the integration would be left without an owner. ";
  throw new ConfigurationError(
    `Refusing to remove ${who.join(" and ")} of integration ${integrationId}: ${why}` +
      'Nothing was changed. Add another member with role: "account_owner" first, keep this one in members (with its role), or, to stop managing the members without removing them, remove the resource from the stack\'s state (pulumi state delete).',
    "members",
  );
}

/**
 * The members of the integration now, by user id: one paged list. An odd record (one that fails
 * parsing) counts as a member whose set and role are what `state` (the managed members recorded)
 * says, when it has them: reading it as an empty set would PATCH the member and show a diff on
 * every up. Otherwise its set is empty and its role unknown.
 */
async function liveMembers(
  client: WorkspaceAccessClient,
  integrationId: string,
  state: readonly IntegrationMemberState[] = [],
): Promise<Map<string, IntegrationMemberState & { email: string | null }>> {
  const members = new Map<string, IntegrationMemberState & { email: string | null }>();
  const recorded = byUser(state);
  for (const [id, member] of await memberList(client, integrationId)) {
    if (!(member instanceof Error)) members.set(id, { ...stateOf(member), email: member.email });
    else {
      // A member whose record cannot be used: what the state knows of it stands.
      const known = recorded.get(id);
      members.set(id, { userId: id, entitlements: known?.entitlements ?? [], role: known?.role ?? null, email: null });
    }
  }
  return members;
}

/** One failed write: the member and why. */
interface Failure {
  userId: string;
  error: unknown;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Everything one operation found and did, from which the outputs are built. */
interface Run {
  integrationId: string;
  live: Map<string, IntegrationMemberState & { email: string | null }>;
  /** The managed members and what the service has for them now. */
  managed: Map<string, IntegrationMemberState>;
  failures: Failure[];
  /** Invitations not seen to finish: user id → job id. */
  pending: Map<string, string>;
}

/** The outputs after a run: managed members, and everyone else the service has as unmanaged. */
function outputsOf(
  run: Run,
  declared: { removeUnmanaged: boolean; declaredRoles: readonly string[] | undefined },
): IntegrationMembersOutputs {
  const unmanaged: UnmanagedIntegrationMember[] = [];
  for (const [id, member] of run.live) if (!run.managed.has(id)) unmanaged.push({ ...member });
  return {
    integrationId: run.integrationId,
    members: sortByUser([...run.managed.values()]),
    removeUnmanaged: declared.removeUnmanaged,
    unmanagedMembers: sortByUser(unmanaged),
    unfinishedJobIds: [...new Set(run.pending.values())].sort(),
    pendingInvitations: sortByUser([...run.pending].map(([userId, jobId]) => ({ userId, jobId }))),
    ...(declared.declaredRoles ? { declaredRoles: [...declared.declaredRoles].sort() } : {}),
  };
}

/** What the program declares that the outputs keep: see {@link IntegrationMembersOutputs.declaredRoles}. */
const declaredOf = (inputs: IntegrationMembersInputs) => ({
  removeUnmanaged: inputs.removeUnmanaged,
  declaredRoles: inputs.members.filter((m) => m.role !== undefined).map((m) => m.userId),
});

/** Removes a member and waits for the job; gone already (404) counts as done. */
async function removeMember(client: WorkspaceAccessClient, run: Run, userId: string): Promise<boolean> {
  try {
    const job = await unlessNotFound(client.integrations.removeUser(run.integrationId, userId));
    await job?.wait();
    run.live.delete(userId);
    run.managed.delete(userId);
    return true;
  } catch (error) {
    run.failures.push({ userId, error });
    return false;
  }
}

/** Replaces a member's set and waits for the job. */
async function setEntitlements(
  client: WorkspaceAccessClient,
  run: Run,
  userId: string,
  entitlements: string[],
  role: IntegrationMemberState["role"],
): Promise<void> {
  try {
    const job = await client.integrations.setEntitlements(run.integrationId, userId, entitlements);
    await job.wait();
    run.managed.set(userId, { userId, entitlements, role });
    const live = run.live.get(userId);
    if (live) run.live.set(userId, { ...live, entitlements });
  } catch (error) {
    run.failures.push({ userId, error });
  }
}

/**
 * Records that this deployment took over a member who was there before (an adoption): when the
 * resource that managed them before (this one under another name, or an `IntegrationEntitlement`)
 * is deleted after this create or update, as Pulumi does, its delete must leave them (`claims.ts`).
 */
function takeOver(run: Run, userId: string): void {
  claim(memberClaim(run.integrationId, userId));
}

/**
 * Makes a declared member who is not one (as far as the list said) a member: a batched invitation.
 * When the answer says they are one after all, the adoption rules apply (a declared role must match).
 */
async function addMember(client: WorkspaceAccessClient, run: Run, declared: MemberInputs): Promise<void> {
  const role = declared.role ?? DEFAULT_INTEGRATION_ROLE;
  try {
    const outcome = await connection().invites.invite({
      integrationId: run.integrationId,
      userId: declared.userId,
      role,
      entitlements: declared.entitlements,
    });
    if ("jobId" in outcome) {
      const state = { userId: declared.userId, entitlements: declared.entitlements, role };
      run.managed.set(declared.userId, state);
      run.live.set(declared.userId, { ...state, email: null });
      return;
    }
    const found = stateOf(outcome.member);
    run.live.set(declared.userId, { ...found, email: outcome.member.email });
    // Found a member after a failed or unanswered invitation: theirs, not this invitation's, when
    // the role is not the one invited (someone else added them meanwhile).
    const theirs = outcome.existed || (found.role !== null && found.role !== role);
    if (theirs && roleChanged(found.role, declared)) throw roleMismatch(run.integrationId, declared, found.role);
    // Someone's member since the list was read: taken over (see takeOver).
    if (theirs) takeOver(run, declared.userId);
    run.managed.set(declared.userId, found);
    if (!sameSet(found.entitlements, declared.entitlements))
      await setEntitlements(client, run, declared.userId, declared.entitlements, found.role);
  } catch (error) {
    const job = unfinishedJobOf(error);
    if (job !== undefined) {
      // The invitation may still land: managed, with no set known, and its job (when one is known) waited for next time.
      run.managed.set(declared.userId, { userId: declared.userId, entitlements: [], role });
      if (job !== null) run.pending.set(declared.userId, job);
    }
    run.failures.push({ userId: declared.userId, error });
  }
}

/**
 * A member whose invitation may still land: one the state records as pending (see addMember)
 * whose own job is still `running` after the wait ({@link settle}), with their state and that job.
 */
function pendingInvitation(
  olds: IntegrationMembersOutputs,
  member: Pick<MemberInputs, "userId" | "role">,
  running: readonly string[],
): { state: IntegrationMemberState; jobId: string } | undefined {
  const jobId = olds.pendingInvitations?.find((p) => p.userId === member.userId)?.jobId;
  if (jobId === undefined || !running.includes(jobId)) return undefined;
  const state = (olds.members ?? []).find((m) => m.userId === member.userId) ?? {
    userId: member.userId,
    entitlements: [],
    role: member.role ?? DEFAULT_INTEGRATION_ROLE,
  };
  return { state, jobId };
}

/** A member not invited again because their invitation may still land: kept as recorded, the job kept to wait for next time, and reported. */
function stillRunning(run: Run, pending: { state: IntegrationMemberState; jobId: string }): void {
  run.managed.set(pending.state.userId, pending.state);
  run.pending.set(pending.state.userId, pending.jobId);
  run.failures.push({
    userId: pending.state.userId,
    error: new Error(
      `the invitation's job ${pending.jobId} is still running after another wait: the user is not invited again (that could invite them twice). The next up waits for it again; if the job is stuck, leave the member out of members for one up, then declare them again.`,
    ),
  });
}

function roleDrift(declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(
    `the service changed the role of user ${declared.userId} to ${current} since the state was last read, and the plan did not show changing it back to ${declared.role} (which removes the member and invites them again). Nothing was done to this member: run pulumi refresh, whose next plan shows the change, then pulumi up; or declare role: "${current}" to keep it.`,
    "members",
  );
}

function roleMismatch(integrationId: string, declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(
    `User ${declared.userId} is already a member of integration ${integrationId} as ${current}, but members declares role ${declared.role}. The API cannot change a member's role in place, and a create does not remove anyone: declare role: "${current}" (or leave role out) to adopt the membership as it is, then change the role in a later update (which removes and invites the member again).`,
    "members",
  );
}

/** The error of a run that had failures: `summary`, then every failed member named and why. */
function failedError(run: Run, summary: string): Error & { reasons: string[] } {
  const reasons = run.failures.map((f) => `user ${f.userId}: ${messageOf(f.error)}`);
  return Object.assign(new Error(`${summary}: ${reasons.join("; ")}`, { cause: run.failures[0]?.error }), { reasons });
}

/** The error of a create or update that had failures: every failed member named; the state written so far goes with it (a partial create or update). */
function runError(run: Run, outputs: IntegrationMembersOutputs, news: Props): Error {
  const n = run.failures.length;
  const error = failedError(
    run,
    `${n} member change${n === 1 ? "" : "s"} of integration ${run.integrationId} failed (the others were made)`,
  );
  return Object.assign(error, {
    id: run.integrationId,
    properties: { ...outputs, __provider: news.__provider },
  });
}

/**
 * A create: one member list; declared members who are members already are adopted (their set
 * applied with one PATCH when it differs; a declared role that differs fails that member), the
 * others invited in batches. Nobody is removed: unmanaged members are reported, and removed by a
 * later update with `removeUnmanaged` (after a plan has shown them).
 */
async function create(inputs: IntegrationMembersInputs, news: Props): Promise<IntegrationMembersOutputs> {
  const { client } = connection();
  const run: Run = {
    integrationId: inputs.integrationId,
    live: await liveMembers(client, inputs.integrationId),
    managed: new Map(),
    failures: [],
    pending: new Map(),
  };
  // Fails before any write, like IntegrationEntitlement's adoption: a role the API cannot change in place.
  const mismatched = inputs.members.filter((m) => roleChanged(run.live.get(m.userId)?.role ?? null, m));
  if (mismatched.length > 0) {
    const first = mismatched[0]!;
    throw roleMismatch(inputs.integrationId, first, run.live.get(first.userId)?.role ?? null);
  }
  await Promise.all(
    inputs.members.map(async (declared) => {
      const live = run.live.get(declared.userId);
      if (!live) return addMember(client, run, declared);
      takeOver(run, declared.userId);
      run.managed.set(declared.userId, { userId: live.userId, entitlements: live.entitlements, role: live.role });
      if (!sameSet(live.entitlements, declared.entitlements))
        await setEntitlements(client, run, declared.userId, declared.entitlements, live.role);
    }),
  );
  const outputs = outputsOf(run, declaredOf(inputs));
  if (run.failures.length === 0) return outputs;
  // Nothing managed yet (every write failed before it was accepted): no resource to record.
  if (run.managed.size === 0) throw run.failures.length === 1 ? run.failures[0]!.error : runError(run, outputs, news);
  throw runError(run, outputs, news);
}

/**
 * An update: one member list, then removals (members no longer declared; unmanaged ones with
 * `removeUnmanaged`; members whose declared role changed), never the last owner; then invitations
 * (batched: new members, and those whose role changed) and one PATCH per member whose set differs.
 */
async function update(olds: IntegrationMembersOutputs, inputs: IntegrationMembersInputs, news: Props): Promise<IntegrationMembersOutputs> {
  const { client } = connection();
  // Invitations an earlier deployment did not see finish: given their time once more.
  const running = olds.unfinishedJobIds?.length ? await settle(client, olds.unfinishedJobIds) : [];
  const live = await liveMembers(client, inputs.integrationId, olds.members);
  const wasManaged = new Set((olds.members ?? []).map((m) => m.userId));
  const declared = byUser(inputs.members);
  const run: Run = { integrationId: inputs.integrationId, live, managed: new Map(), failures: [], pending: new Map() };
  for (const id of wasManaged) {
    const member = live.get(id);
    if (member) run.managed.set(id, { userId: id, entitlements: member.entitlements, role: member.role });
  }
  // A member another resource took over in this deployment is no longer this one's to remove.
  const ours = (id: string) => !isClaimed(memberClaim(inputs.integrationId, id));
  const dropped = [...wasManaged].filter((id) => !declared.has(id) && live.has(id) && ours(id));
  // Only the unmanaged members the state lists, which the plan showed: anyone who joined since is
  // reported in the outputs, and removed by a later up, after a plan has shown them.
  const unmanaged = inputs.removeUnmanaged
    ? (olds.unmanagedMembers ?? [])
        .map((m) => m.userId)
        .filter((id) => live.has(id) && !declared.has(id) && !wasManaged.has(id) && ours(id))
    : [];
  // A managed member whose declared role changed (as the plan showed it: against the state) is
  // removed and invited again. A member whose role the service changed since the state was read
  // (no refresh) is not changed back unseen: that member fails alone, as does a member taken over
  // now with another role (adoption never removes anyone).
  const stateRole = byUser(olds.members ?? []);
  const liveRoleDiffers = (m: MemberInputs) => live.has(m.userId) && roleChanged(live.get(m.userId)!.role, m);
  const roleChanges = inputs.members.filter(
    (m) => wasManaged.has(m.userId) && liveRoleDiffers(m) && roleChanged(stateRole.get(m.userId)?.role ?? null, m),
  );
  const drifted = inputs.members.filter((m) => wasManaged.has(m.userId) && liveRoleDiffers(m) && !roleChanges.includes(m));
  const mismatched = inputs.members.filter((m) => !wasManaged.has(m.userId) && liveRoleDiffers(m));
  for (const m of mismatched)
    run.failures.push({ userId: m.userId, error: roleMismatch(inputs.integrationId, m, live.get(m.userId)!.role) });
  for (const m of drifted) run.failures.push({ userId: m.userId, error: roleDrift(m, live.get(m.userId)!.role) });
  const removed = new Set([...dropped, ...unmanaged, ...roleChanges.map((m) => m.userId)]);
  guardLastOwner(inputs.integrationId, live.values(), removed);

  const removedOk = new Set<string>();
  await Promise.all(
    [...removed].map(async (id) => {
      if (await removeMember(client, run, id)) removedOk.add(id);
    }),
  );
  await Promise.all(
    inputs.members.map(async (member) => {
      const current = run.live.get(member.userId);
      // A role change whose removal failed, a mismatched adoption or a role changed unseen: left as it is (the failure is reported).
      // (A drifted member stays managed as the service has them: the next plan shows the role change.)
      if ((roleChanges.includes(member) && !removedOk.has(member.userId)) || mismatched.includes(member) || drifted.includes(member))
        return;
      if (!current) {
        // Removed by this run for a role change: invited again, whatever else is pending.
        const invited = removedOk.has(member.userId) ? undefined : pendingInvitation(olds, member, running);
        return invited ? stillRunning(run, invited) : addMember(client, run, member);
      }
      if (!wasManaged.has(member.userId)) takeOver(run, member.userId);
      run.managed.set(member.userId, { userId: member.userId, entitlements: current.entitlements, role: current.role });
      if (!sameSet(current.entitlements, member.entitlements))
        await setEntitlements(client, run, member.userId, member.entitlements, current.role);
    }),
  );
  const outputs = outputsOf(run, declaredOf(inputs));
  if (run.failures.length > 0) throw runError(run, outputs, news);
  return outputs;
}

/** A change of inputs: the integration replaces the resource; members, their sets and declared roles, and pending removals update it. */
function diffMembers(olds: IntegrationMembersOutputs, news: Props): pulumi.dynamic.DiffResult {
  const replaces = isUnknown(news.integrationId) || news.integrationId !== olds.integrationId ? ["integrationId"] : [];
  const removeUnmanaged = news.removeUnmanaged === true;
  const unmanaged = olds.unmanagedMembers ?? [];
  const pendingRemovals = removeUnmanaged && unmanaged.length > 0;
  const flagChanged = isUnknown(news.removeUnmanaged) || removeUnmanaged !== (olds.removeUnmanaged === true);
  const unfinished = (olds.unfinishedJobIds ?? []).length > 0;
  if (containsUnknown(news.members) || !Array.isArray(news.members)) {
    return { changes: true, replaces, deleteBeforeReplace: false };
  }
  const declared = news.members as MemberInputs[];
  const state = byUser(olds.members ?? []);
  const membersChanged = declared.length !== state.size || declared.some((m) => memberChanged(state.get(m.userId), m));
  // A role newly declared (or no longer declared) with the service's value: no write, but the
  // state must learn it, or each refresh would report the role as the program no longer has it.
  const declaredRolesChanged =
    olds.declaredRoles !== undefined &&
    JSON.stringify([...olds.declaredRoles].sort()) !==
      JSON.stringify(
        declared
          .filter((m) => m.role !== undefined)
          .map((m) => m.userId)
          .sort(),
      );
  const changes = replaces.length > 0 || membersChanged || flagChanged || pendingRemovals || unfinished || declaredRolesChanged;
  if (changes && replaces.length === 0) {
    // As far as the state knows (the update checks again against the service): the plan fails
    // rather than show a change that would remove the last owner.
    const names = new Set(declared.map((m) => m.userId));
    const removed = new Set([
      ...[...state.keys()].filter((id) => !names.has(id)),
      ...(removeUnmanaged ? unmanaged.map((m) => m.userId).filter((id) => !names.has(id)) : []),
      ...declared.filter((m) => roleChanged(state.get(m.userId)?.role ?? null, m)).map((m) => m.userId),
    ]);
    guardLastOwner(olds.integrationId, [...(olds.members ?? []), ...unmanaged], removed);
  }
  return { changes, replaces, deleteBeforeReplace: false };
}

const asInputs = (news: Props) => normalise(news) as unknown as IntegrationMembersInputs;

export const provider: pulumi.dynamic.ResourceProvider<Props, IntegrationMembersOutputs> = {
  configure,

  async check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult<Props>> {
    const invalid = validate(integrationMembersInputs, news);
    // Inputs that failed are returned as given: normalising them could crash on the very value a
    // failure names (`members: [null]`), and the engine shows the failures, not the inputs.
    if (invalid.length > 0) return { inputs: defined(news), failures: [...settingsFailures(), ...invalid] };
    const failures = [...settingsFailures()];
    // Valid inputs and settings: are the new or changed entitlement sets in the integration's catalogue?
    if (failures.length === 0) failures.push(...(await unofferedMemberEntitlements(olds, news)));
    return { inputs: normalise(news), failures };
  },

  async diff(_id: string, olds: IntegrationMembersOutputs, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return diffMembers(olds, news);
  },

  async create(news: Props): Promise<pulumi.dynamic.CreateResult<IntegrationMembersOutputs>> {
    const inputs = asInputs(news);
    return withWrite(async () => ({ id: inputs.integrationId, outs: await create(inputs, news) }), inputs.integrationId);
  },

  async read(id: string, props?: IntegrationMembersOutputs): Promise<pulumi.dynamic.ReadResult<IntegrationMembersOutputs>> {
    return withHints(async () => {
      const { client } = connection();
      let live: Awaited<ReturnType<typeof liveMembers>>;
      try {
        live = await liveMembers(client, id, props?.members);
      } catch (error) {
        // The integration is gone, and its members with it.
        if (NotFoundError.isInstance(error)) return { id: "", props: {} as IntegrationMembersOutputs };
        throw error;
      }
      // Read without state (an import): every member is taken as managed.
      const managedIds = props?.members ? new Set(props.members.map((m) => m.userId)) : new Set(live.keys());
      const run: Run = { integrationId: id, live, managed: new Map(), failures: [], pending: new Map() };
      for (const userId of managedIds) {
        const member = live.get(userId);
        if (member) run.managed.set(userId, { userId, entitlements: member.entitlements, role: member.role });
        else {
          // Not a member yet, but invited by a job not seen to finish: still managed, so that the
          // next up waits for that job instead of inviting them again, and a destroy waits too.
          const jobId = props?.pendingInvitations?.find((p) => p.userId === userId)?.jobId;
          const state = props?.members?.find((m) => m.userId === userId);
          if (jobId !== undefined && state) {
            run.managed.set(userId, state);
            run.pending.set(userId, jobId);
          }
        }
      }
      const declaredRoles = props?.declaredRoles;
      const outs = outputsOf(run, { removeUnmanaged: props?.removeUnmanaged === true, declaredRoles });
      // The inputs as the program declares them: a role only where it declares one (or, from a
      // state without that record, an import, every known role), so a refresh changes nothing else.
      const roleDeclared = (userId: string) => declaredRoles === undefined || declaredRoles.includes(userId);
      const inputs = {
        integrationId: id,
        members: outs.members.map((m) => ({
          userId: m.userId,
          entitlements: m.entitlements,
          ...(m.role !== null && roleDeclared(m.userId) ? { role: m.role } : {}),
        })),
        removeUnmanaged: outs.removeUnmanaged,
      };
      return { id, props: outs, inputs: inputs as unknown as IntegrationMembersOutputs };
    });
  },

  async update(_id: string, olds: IntegrationMembersOutputs, news: Props): Promise<pulumi.dynamic.UpdateResult<IntegrationMembersOutputs>> {
    const inputs = asInputs(news);
    return withWrite(async () => ({ outs: await update(olds, inputs, news) }), inputs.integrationId);
  },

  async delete(id: string, props: IntegrationMembersOutputs): Promise<void> {
    await withWrite(async () => {
      const { client } = connection();
      const running = props.unfinishedJobIds?.length ? await settle(client, props.unfinishedJobIds) : [];
      let live: Awaited<ReturnType<typeof liveMembers>>;
      try {
        live = await liveMembers(client, id, props.members);
      } catch (error) {
        if (NotFoundError.isInstance(error)) return;
        throw error;
      }
      // A member another resource took over in this deployment (a rename, IntegrationEntitlement
      // resources adopting them) is theirs now: removing it would undo that.
      const removed = new Set(
        (props.members ?? []).map((m) => m.userId).filter((userId) => live.has(userId) && !isClaimed(memberClaim(id, userId))),
      );
      guardLastOwner(id, live.values(), removed);
      const run: Run = { integrationId: id, live, managed: new Map(), failures: [], pending: new Map() };
      await Promise.all([...removed].map((userId) => removeMember(client, run, userId)));
      // A member whose invitation is still running may join after this delete: the delete fails
      // for them, so the resource stays in the stack (with its jobs) and the next destroy waits again.
      const pending = (props.members ?? []).flatMap((m) => {
        const invited = live.has(m.userId) ? undefined : pendingInvitation(props, { userId: m.userId }, running);
        return invited ? [invited] : [];
      });
      for (const { state, jobId } of pending) {
        run.failures.push({
          userId: state.userId,
          error: new Error(
            `the invitation's job ${jobId} is still running after another wait, so the user may still become a member: run the destroy again once it has finished (this resource stays in the stack until then).`,
          ),
        });
      }
      if (run.failures.length > 0) {
        throw failedError(
          run,
          `${run.failures.length} of ${removed.size + pending.length} members of integration ${id} could not be removed (the others were)`,
        );
      }
    }, id);
  },
};
