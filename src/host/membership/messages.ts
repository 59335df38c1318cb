/** The long messages both membership resources ({@link IntegrationMembers}, {@link IntegrationEntitlement}) give. */
import { ApiError, ConfigurationError, type NotFoundError, withMessage } from "../../client";
import { describeNeeds, OPERATION_SCOPES, SCOPES } from "../../client/scopes";
import { type KeySource, keySourceHint } from "../../shared/hints";
import { namedUpTo } from "../../shared/named-up-to";

/** A member's invitation (`POST`) or set (`PATCH`) answered 404: the integration, the user or member, or a key lacking a write scope. */
export const isWriteNotFound = (error: unknown): error is ApiError =>
  ApiError.isInstance(error) && error.status === 404 && (error.method === "POST" || error.method === "PATCH");

/**
 * A write's 404 that is no {@link NotFoundError} (a `PATCH` whose member the client read back there: an entitlement, or the key's
 * scopes; invitations found refused to the key, {@link inviteRefusedToKey}) with the setting holding the key (`keySource`) added,
 * once, as every write's 404 that may be the key's names it.
 */
export function withKeySource(error: ApiError, keySource: KeySource | undefined): ApiError {
  const hint = keySourceHint(keySource);
  return error.message.includes(hint) ? error : withMessage(error, `${error.message}${hint}`);
}

/** The request a 404 answered, as its error names it: `POST /api/v1/integrations/{id}/users`. */
export const requestOf = (error: NotFoundError) => `${error.method} ${error.path}`;

/**
 * A create's or update's request about user `userId` answered 404 (`notFound`), but integration `integrationId` answers its own read: the
 * 404's words, that, and what else the 404 may be, with its fix: the user (an invitation's, one the workspace does not have; a
 * `PATCH`'s, no longer a member), or, unless the client knows the key holds the write's scopes (`scopesHeld`: a write of its kind
 * answered it success), a service's answer to a key lacking a scope the write needs (`keySource`: where the key is set). A `PATCH`
 * of a member found just before it (`memberFound`: an adoption's, an {@link IntegrationMembers}' listed member), the key holding
 * the scopes: neither, but likely an entitlement, of the resource's property `entitlementsAt` ({@link memberThereAfterPatch}).
 */
export function integrationAnswers(
  integrationId: string,
  notFound: NotFoundError,
  userId: string,
  keySource: KeySource | undefined,
  memberFound = false,
  entitlementsAt = "entitlements",
): NotFoundError | ApiError | ConfigurationError {
  const invite = notFound.method === "POST";
  if (!invite && memberFound && notFound.scopesHeld) {
    return memberThereAfterPatch(integrationId, userId, notFound, keySource, "before", entitlementsAt);
  }
  const user = `user ${userId}'s (${invite ? "not a user of the workspace" : "no longer a member"}: check userId)`;
  const answers = `${notFound.message} Integration ${integrationId} answers GET /integrations/${integrationId}, so it exists: this 404 is not for want of it.`;
  if (notFound.scopesHeld) return withMessage(notFound, `${answers} It may be ${user}, not the key's, which holds the scopes.`);
  // As the client's words before it name them: the write's own scopes and its job's (`describeNeeds`).
  const needs = describeNeeds(invite ? OPERATION_SCOPES.invite : OPERATION_SCOPES.memberWrite, "always");
  return withMessage(
    notFound,
    `${answers} It may be ${user}, or the service's answer (not disclosed) to a key lacking a scope: this write needs ` +
      `${needs}: check the key's scopes.${keySourceHint(keySource)}`,
  );
}

/**
 * A member's `PATCH` answered 404 (`notFound`) whose member `userId` is there (the client did not read it: a write of its kind had
 * answered the key success): read back after it (`seen`: `after`, an update's), no member removed, so the 404 is an entitlement
 * the body names; found just before it (`before`, an adoption's), its integration answering after, that is the likely cause; or,
 * unless the key holds the write's scopes (`scopesHeld`), the service's answer to a key lacking one (`keySource`: where the key is
 * set). No {@link NotFoundError}: nobody reads it as gone, nor sends the `PATCH` again; the key holding the scopes, a
 * {@link ConfigurationError} of the resource's property holding the set (`entitlementsAt`: `members` for an {@link IntegrationMembers}).
 */
export function memberThereAfterPatch(
  integrationId: string,
  userId: string,
  notFound: NotFoundError,
  keySource: KeySource | undefined,
  seen: "after" | "before" = "after",
  entitlementsAt = "entitlements",
): ApiError | ConfigurationError {
  const needs = describeNeeds(OPERATION_SCOPES.memberWrite, "always");
  const key = notFound.scopesHeld
    ? ""
    : `, or the service's answer (not disclosed) to a key lacking a scope: this write needs ${needs}: check the key's scopes.` +
      keySourceHint(keySource);
  const there =
    seen === "after"
      ? `GET /integrations/${integrationId}/users/${userId} then answers that user ${userId} is a member of integration ` +
        `${integrationId}: the 404 is not for want of the member`
      : `User ${userId} was found a member of integration ${integrationId} just before the PATCH, and the integration answers ` +
        `GET /integrations/${integrationId}: the 404 is likely not for want of the member`;
  const message =
    `${notFound.message} ${there}, but an entitlement the PATCH names that the integration does not offer (check ` +
    `entitlements against its catalogue)${key || "."} The PATCH was not sent again.`;
  // The key holds the scopes: the entitlements are at fault (an ApiError would have the key's setting named after it).
  if (notFound.scopesHeld) return new ConfigurationError(message, entitlementsAt);
  return notFoundAs(notFound, message);
}

/**
 * `notFound`'s request and answer as an {@link ApiError} saying `message`: no {@link NotFoundError}, so nobody reads it as the
 * record gone, nor sends the write again; the resources add the setting holding the key ({@link withKeySource}).
 */
export function notFoundAs(notFound: NotFoundError, message: string): ApiError {
  const { method, path, status, code, title, detail, meta, requestId } = notFound;
  return new ApiError(message, { method, path, status, body: { code, title, detail, meta }, requestId });
}

/**
 * A batch of `size` invitations into `integrationId` answered 404 before any invitation answered this key success, and so did
 * two of its users' alone (`users`; `notFound`, the first's), while the integration answers its own read and the workspace has
 * both users: the 404 is the service's answer (not disclosed) to a key lacking a scope an invitation needs, which every
 * invitation gets alike. `offered`: the integration's catalogue offers the set asked; not known (it did not answer, or
 * publishes none), an entitlement it does not offer is named as the other cause every invitation shares.
 */
export function inviteRefusedToKey(
  integrationId: string,
  notFound: NotFoundError,
  users: readonly string[],
  size: number,
  offered: boolean,
): string {
  const each = users.map((id) => `user ${id}'s`).join(" and ");
  const catalogue = offered ? ", and the integration offers the entitlements asked (its catalogue)" : "";
  const entitlement = offered
    ? ""
    : " (or to an entitlement asked that the integration does not offer, which every invitation of this set would be refused for " +
      "alike: its catalogue did not answer)";
  return (
    `${requestOf(notFound)} answered 404 to ${size} invitations sent together, before any invitation answered this key success, ` +
    `and again to ${each}, each sent alone, though integration ${integrationId} answers GET /integrations/${integrationId} and ` +
    `the workspace has ${users.length === 1 ? "that user" : "both users"} (GET /users/{id})${catalogue}: so the service refused ` +
    `the invitations to the key, answering 404 (not disclosed) to a key lacking a scope an invitation needs${entitlement}. An ` +
    `invitation needs ${describeNeeds(OPERATION_SCOPES.invite, "always")}: give the key those it lacks. Nothing was invited, ` +
    "and none was sent again."
  );
}

/**
 * What an update whose integration does not exist did (nothing), and what to do with `resource`: the 404 is no removal of the
 * resource, which a refresh, its integration's 404 confirmed, drops from the state.
 */
export function goneSinceWritten(resource: "IntegrationEntitlement" | "IntegrationMembers"): string {
  return (
    "It was deleted since the state was written: nothing was changed, and the state keeps the resource. " +
    `Remove this ${resource} from the program (its destroy then finds the integration gone and removes no one), or point its ` +
    "integrationId at an existing integration; pulumi refresh drops it from the state, its integration confirmed gone (removing no one)."
  );
}

/**
 * The integration's own read, sent to tell whether a 404 (`notFound`) meant it gone, failed with `error`: both said, nothing read
 * as gone. A read that failed (a 5xx or 429 past the client's retries, no answer) adds what was done and what to do
 * ({@link afterUnread}); one the transport refused to read as an absence (a {@link ConfigurationError}: not disclosed to the key)
 * names its fix itself. A copy of `error`, its class and data kept: no {@link NotFoundError}, so nobody reads it as the
 * integration, user or member gone.
 */
export function integrationUnread(integrationId: string, notFound: NotFoundError, error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const next = ConfigurationError.isInstance(error) ? "" : ` ${afterUnread(integrationId, notFound)}`;
  return withMessage(
    error,
    `${requestOf(notFound)} answered 404, and GET /integrations/${integrationId}, which tells whether the integration is gone, ` +
      `did not answer it, so nothing was read as gone: ${error.message}${next}`,
  );
}

/** What a request of each method left when answered 404 (a refusal, not sent again), what to run again, and the scopes it needs. */
const AFTER_404 = {
  POST: ["Nothing was invited, and no invitation was sent again: run pulumi up", "an invitation needs", OPERATION_SCOPES.invite],
  PATCH: ["Nothing was changed, and the PATCH was not sent again: run pulumi up", "this write needs", OPERATION_SCOPES.memberWrite],
  GET: ["Nothing was dropped, removed or written: run the command", "a member list needs", [SCOPES.readIntegrations, SCOPES.readUsers]],
} as const;

/**
 * What a request answered 404 (`notFound`), its integration unread, did (nothing) and what to do: run again once the service
 * answers; the 404 back, check the key's scopes (the request's, by the contract's table) and the integration id.
 */
function afterUnread(integrationId: string, { method }: NotFoundError): string {
  const write = method === "POST" || method === "PATCH";
  const [done, needed, scopes] = write ? AFTER_404[method] : AFTER_404.GET;
  const needs = describeNeeds(scopes, write ? "always" : undefined);
  return (
    `${done} again once the service answers. Should the 404 come back while the integration answers its read, check the ` +
    `key's scopes (${needed} ${needs}) and the integrationId (${integrationId}).`
  );
}

/** A destroy found `job` (already phrased) still running after another wait; `stuck` adds what to do if it never ends. */
export function stillRunningOnDestroy(job: string, stuck = ""): string {
  return (
    `${job} is still running after another wait, so the user may still become a member: ` +
    `run the destroy again once it has finished (this resource stays in the stack until then${stuck}).`
  );
}

/**
 * The entitlements of `integrationId` could not be checked against its catalogue (`error` says why; `notFound`: the integration
 * itself was not found, so what an up would fail on is its id, not an entitlement's).
 */
export function entitlementsNotChecked(integrationId: string, error: unknown, notFound = false): string {
  const why = error instanceof Error ? error.message : String(error);
  const then = notFound
    ? "The preview goes on, but an up fails unless the integration exists by then: check integrationId (getIntegration looks an integration up by name)."
    : "The preview goes on; a wrong entitlement id will fail the invite's job during up.";
  return `The entitlements of integration ${integrationId} were not checked against its catalogue (${why}). ${then}`;
}

/** "integration X offers no entitlement "VEIWER"; it offers (closest first): VIEWER, EDITOR, MANAGER" (`closest`: offered, nearest first). */
export function unoffered(integrationId: string, unknown: readonly string[], closest: readonly string[]): string {
  const names = unknown.map((id) => JSON.stringify(id)).join(", ");
  const listed = namedUpTo(closest);
  return (
    `integration ${integrationId} offers no entitlement ${names}; it offers (closest first): ${listed}. ` +
    "See getIntegrationEntitlements({ integrationId })."
  );
}

/** Why a member's ids not offered (`ids`) are let through: the member holds them already. */
export function heldAlready(ids: readonly string[]): string {
  const them = ids.length === 1 ? "it" : "them";
  return `Let through: the member holds ${them} already (granted before the integration stopped offering ${them}).`;
}

/**
 * The service's record of member `userId` of `integrationId` leaves its entitlements out: not known, so the set `recorded` (the
 * state's), else the one `declared` where `ignoreChanges` names the set, is recorded and nothing is written for it; neither,
 * taken as none until a write of the declared set makes it known.
 */
export function entitlementsLeftOut(
  integrationId: string,
  userId: string,
  standIn: { recorded?: readonly string[] | undefined; declared?: readonly string[] | undefined },
): string {
  const head = `The service's record of user ${userId} in integration ${integrationId} leaves out its entitlements (not known, which is not none)`;
  const { recorded, declared } = standIn;
  const setOf = (ids: readonly string[]) => (ids.length > 0 ? `[${[...ids].sort().join(", ")}]` : "none");
  const unseen = "A change made to them in the service is not seen until the service's record says them.";
  if (recorded !== undefined)
    return `${head}: kept as the state records them (${setOf(recorded)}), and nothing is written for it. ${unseen}`;
  if (declared !== undefined) {
    return (
      `${head}, and no state records them: ignoreChanges keeps the service's, so they are recorded as declared ` +
      `(${setOf(declared)}), and nothing is written for it. ${unseen}`
    );
  }
  return `${head}, and no state records them: taken as none, until a write of the declared set makes them known.`;
}

/**
 * A destroy (or `after`: an update) found `userIds` no members of `integrationId` while their invitation's answer was lost (no
 * job known), or while its job `finishedJob` had finished (a read lagging the service's jobs): nothing tells whether it will
 * land, so they are not waited for, and the resource goes; said, as a grant may follow it.
 */
export function lostInvitationsMayLand(
  integrationId: string,
  userIds: readonly string[],
  after = "destroy",
  finishedJob: string | null = null,
): string {
  const who = userIds.length === 1 ? `user ${userIds[0]}` : `users ${userIds.join(", ")}`;
  const answer = finishedJob === null ? "got no answer (no job is known)" : `finished (job ${finishedJob})`;
  return (
    `The invitation of ${who} to integration ${integrationId} ${answer}, and ` +
    `${userIds.length === 1 ? "the user is" : "they are"} not a member now: it may still land after this ${after}, ` +
    "granting access no stack records. Check the integration's members in the service later, and remove them there if they appear."
  );
}
