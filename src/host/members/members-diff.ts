/** What a change of an {@link IntegrationMembers}' inputs means, from the state alone (the update plans again against the service). */
import { idOf, sameId } from "../../client/ids";
import type * as pulumi from "@pulumi/pulumi";
import { type IntegrationMembersInputs, type MemberInputs, type Props, optInChanged } from "../../shared/inputs";
import { containsUnknown, isUnknown } from "../../shared/unknown";
import { type Ignorable, planMembers, unchanged } from "./members-plan";
import { wholeIgnoredOf } from "../hidden-inputs";
import { IGNORE_CHANGES } from "../../shared/input-constants";
import { byKey, type IntegrationMembersOutputs } from "./members-state";

/**
 * What of every declared member the program's `ignoreChanges` leaves as the service has it: their set and role, where a path
 * names `members` whole (or `"*"`). A path naming a part (`members[0].role`, `members[*].role`) leaves nothing here: the classes
 * refuse one (`refuseSetPlaces`: `check` sorts the members by user id, so a place names nobody the program meant).
 */
export const ignoredOfMembers = (news: Props): Ignorable[] =>
  wholeIgnoredOf(news[IGNORE_CHANGES], ["members"]).length > 0 ? ["entitlements", "role"] : [];

/** What the program declares that the outputs keep: see {@link IntegrationMembersOutputs.declaredRoles}. */
export const declaredOf = (inputs: IntegrationMembersInputs) => ({
  removeUnmanaged: inputs.removeUnmanaged,
  declaredRoles: inputs.members.filter((m) => m.role !== undefined).map((m) => m.userId),
  declaredOwners: inputs.members.filter((m) => m.role === "account_owner").map((m) => m.userId),
  deleteOnDestroy: inputs.deleteOnDestroy,
});

/** Whether the declared members (their sets and roles) differ from the state's; unknown members count as changed. */
function membersChangedOf(olds: IntegrationMembersOutputs, news: Props): boolean {
  // Ignored (`ignoreChanges`): the members the state records are what the service has, and no declaration changes them.
  if (ignoredOfMembers(news).length > 0) return false;
  if (containsUnknown(news.members) || !Array.isArray(news.members)) return true;
  const members = news.members as MemberInputs[];
  const state = byKey(olds.members);
  const changedMember = (m: MemberInputs) => {
    const s = state.get(idOf(m.userId));
    return !s || !unchanged(m, s);
  };
  return members.length !== state.size || members.some(changedMember);
}

const integrationChanged = (olds: IntegrationMembersOutputs, news: Props) =>
  isUnknown(news.integrationId) || !sameId(String(news.integrationId), olds.integrationId);
const flagChangedOf = (olds: IntegrationMembersOutputs, news: Props) =>
  isUnknown(news.removeUnmanaged) || (news.removeUnmanaged === true) !== (olds.removeUnmanaged === true);

/** The input properties that differ between the state and the program's inputs, for `replaceOnChanges`. */
export function changedMembersProperties(olds: IntegrationMembersOutputs, news: Props): string[] {
  return [
    ...(integrationChanged(olds, news) ? ["integrationId"] : []),
    ...(membersChangedOf(olds, news) ? ["members"] : []),
    ...(flagChangedOf(olds, news) ? ["removeUnmanaged"] : []),
    ...(optInChanged(olds, news) ? ["deleteOnDestroy"] : []),
  ];
}

/**
 * A change of inputs: the integration replaces the resource; members, their sets and declared roles, and pending removals update it.
 * `declared`: `news` are the program's (its `check` ran in this deployment). Else they are the state's inputs, as the engine diffs
 * a refresh's read against them: their roles are those a refresh read, which tell nothing of whose role the program declares, so
 * they change no record of it; against the roles read now, they show a role changed in the service.
 */
export function diffMembers(olds: IntegrationMembersOutputs, news: Props, declared = true): pulumi.dynamic.DiffResult {
  const replaces = integrationChanged(olds, news) ? ["integrationId"] : [];
  const removeUnmanaged = news.removeUnmanaged === true;
  const unmanaged = olds.unmanagedMembers;
  const flagChanged = flagChangedOf(olds, news);
  if (containsUnknown(news.members) || !Array.isArray(news.members)) return { changes: true, replaces, deleteBeforeReplace: false };
  const members = news.members as MemberInputs[];
  const membersChanged = membersChangedOf(olds, news);
  // A role newly (or no longer) declared as the service has it: no write, but the state must learn it, for the refresh's inputs.
  const ids = (list: readonly string[]) => JSON.stringify([...list].map(idOf).sort());
  const recordChanged = (recorded: readonly string[] | undefined, which: (m: MemberInputs) => boolean) =>
    recorded !== undefined && ids(recorded) !== ids(members.filter(which).map((m) => m.userId));
  const rolesChanged =
    declared &&
    !ignoredOfMembers(news).includes("role") &&
    (recordChanged(olds.declaredRoles, (m) => m.role !== undefined) ||
      recordChanged(olds.declaredOwners, (m) => m.role === "account_owner"));
  const pendingRemovals = removeUnmanaged && unmanaged.length > 0;
  const unfinished = (olds.pendingInvitations ?? []).length > 0;
  // The destroy opt-in: no request, but the state (which the delete reads) must learn it.
  const optIn = optInChanged(olds, news);
  const changes = replaces.length > 0 || membersChanged || flagChanged || pendingRemovals || unfinished || rolesChanged || optIn;
  if (changes && replaces.length === 0) {
    // The update's plan as far as the state knows: it fails rather than show a change that would remove the last owner.
    planMembers({
      op: "diff",
      integrationId: olds.integrationId,
      declared: members,
      removeUnmanaged,
      prior: olds,
      listed: byKey([...unmanaged, ...olds.members.map((m) => ({ ...m, email: null }))]),
      // As the update plans: an owner made by hand that the program drops is kept, not counted as removed.
      keepUndeclaredOwners: news.deleteOnDestroy !== true,
      ignored: ignoredOfMembers(news),
    });
  }
  return { changes, replaces, deleteBeforeReplace: false };
}
