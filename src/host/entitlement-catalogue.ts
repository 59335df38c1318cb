/**
 * The preview's check that a membership resource names entitlements its integration offers (`GET /integrations/{id}/entitlements`,
 * once per integration and context, only for a new or changed set), so a misspelt id fails the preview, not the invite's job.
 * A help, not a gate: a catalogue that cannot be read or is empty warns once. But a key refused outright fails the check (a pull
 * request's preview must not pass what its merge fails); a 401 may also mean only that the key lacks Write integrations, which
 * an adoption's read-only `up` does not need: a read needing only Read integrations tells the two apart. So does a 404 (not
 * found, or not disclosed): a key the service does not disclose integrations to fails the check as one refused.
 */
import { ConfigurationError, idOf, sameId, UnauthorizedError, unlessNotFound, type WorkspaceAccessClient } from "../client";
import type { IntegrationPresence } from "../client/integrations";
import { editDistance } from "../shared/edit-distance";
import { type KeySource, keySourceHint } from "../shared/hints";
import { type CheckFailure, entitlementSet, type Props, sameSet } from "../shared/inputs";
import { containsUnknown, knownString } from "../shared/unknown";
import { entitlementsNotChecked, heldAlready, unoffered } from "./membership/messages";
import type { MembershipView } from "./membership/membership-view";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;
const knownSet = (value: unknown): value is string[] =>
  Array.isArray(value) && !containsUnknown(value) && value.every((e) => typeof e === "string");

/** The offered ids, those nearest to any unknown id first (case-insensitive edit distance, `shared/edit-distance.ts`), then in catalogue order. */
export function closestFirst(unknown: readonly string[], offered: readonly string[]): string[] {
  const distance = (id: string) => Math.min(...unknown.map((u) => editDistance(u.toLowerCase(), id.toLowerCase())));
  return offered
    .map((id, index) => ({ id, index, distance: distance(id) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .map((entry) => entry.id);
}

/**
 * Whether the key is refused for a read needing only Read integrations too (after a 401 on the catalogue): the integration's own
 * read (`integrations.presence`, shared with the membership resources) refused as well.
 */
async function refusedOutright(client: WorkspaceAccessClient, integrationId: string): Promise<boolean> {
  try {
    await client.integrations.presence(integrationId);
    return false;
  } catch (error) {
    return UnauthorizedError.isInstance(error);
  }
}

/**
 * Why a catalogue answered 404, as the integration's own read (`integrations.presence`) tells: gone (a 404 the client proves), or
 * there with a catalogue not disclosed to this key (`why`; `gone`: the integration is not there, so its id is what to check). A
 * key the service does not disclose integrations to gets the client's ConfigurationError, thrown: an up with it would fail
 * every membership read, so the preview fails as for a key refused.
 */
async function whyNoCatalogue(client: WorkspaceAccessClient, integrationId: string): Promise<{ why: Error; gone: boolean }> {
  let presence: IntegrationPresence;
  try {
    presence = await client.integrations.presence(integrationId);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      why: new Error(`the integration was not found, or is not disclosed to this key, and its own read failed: ${why}`),
      gone: false,
    };
  }
  if (presence.kind === "undisclosed") throw presence.error;
  if (presence.kind === "there")
    return { why: new Error("the integration answers, but its catalogue is not disclosed to this key"), gone: false };
  return { why: new Error("the integration was not found"), gone: true };
}

/** The 401 of a catalogue read, worded for the preview it fails; class and data kept (every check awaiting it gets this one). */
function refusedKey(error: UnauthorizedError, integrationId: string, keySource: KeySource | undefined): UnauthorizedError {
  error.message =
    `The API key was refused (401) reading integration ${integrationId} and its entitlement catalogue, so the preview stops: ` +
    "an up with this key would have every request refused. The key is wrong, revoked or expired, or lacks the scopes Read " +
    "integrations (read:integrations) and Write integrations (write:integrations), which reading a catalogue needs." +
    `${keySourceHint(keySource)} (${error.method} ${error.path} answered 401${error.detail ? `: ${error.detail}` : "."})`;
  return error;
}

/**
 * The entitlements each of `userIds` holds in the integration now (by user id in its one form), `undefined` for one not a member,
 * or whose record leaves them out.
 */
export type HeldNow = (userIds: readonly string[]) => Promise<ReadonlyMap<string, readonly string[] | undefined>>;

/**
 * What the members named hold now, read through the integration's membership view (`view`: a miss confirmed absent), for the
 * inputs of an `IntegrationMembers` or an `IntegrationEntitlement`: the catalogue lets a retired id they hold through.
 */
export function heldIn(view: () => MembershipView, inputs: Props): HeldNow {
  return async (userIds) => {
    const declared = Array.isArray(inputs.members) ? inputs.members.length : userIds.length;
    const found = await view().find(userIds, declared);
    return new Map(
      [...found].map(([id, member]) => [id, member && !(member instanceof Error) ? (member.entitlements ?? undefined) : undefined]),
    );
  };
}

/** The catalogues of one provider context ({@link ProviderContext.catalogue}): the offered ids per integration, read once. */
export class EntitlementCatalogue {
  readonly #client: () => WorkspaceAccessClient;
  readonly #warn: (message: string) => void;
  /** Where the key came from, named when it is refused outright. */
  readonly #keySource: KeySource | undefined;
  readonly #catalogues = new Map<string, Promise<string[] | undefined>>();
  /** Settings errors warned about: each once per context (it would else warn per resource). */
  readonly #warnedSettings = new Set<string>();

  /** `client` gives the context's client, or throws when the settings make none; `keySource`, where its key came from. */
  constructor(client: () => WorkspaceAccessClient, warn: (message: string) => void, keySource?: KeySource) {
    this.#client = client;
    this.#warn = warn;
    this.#keySource = keySource;
  }

  /**
   * The check failures of an `IntegrationEntitlement`: its one member's (see {@link unofferedMemberEntitlements}). With
   * `adoptExisting`, the membership adopted may hold an entitlement since retired: with `held` and the user known, an id the
   * member holds already only warns, and one they do not (misspelt in an edit of an exported project) still fails; with the
   * user not known yet (an exported project's first preview, its users not adopted yet), a warning instead.
   */
  async unofferedEntitlements(olds: Props, news: Props, held?: HeldNow): Promise<CheckFailure[]> {
    // One member, compared by its set alone (a new user with the same set needs no new check).
    const byHolding = news.adoptExisting === true && held !== undefined && knownString(news.userId);
    const userId = byHolding ? news.userId : "member";
    const asMembers = (p: Props) => ({ integrationId: p.integrationId, members: [{ userId, entitlements: p.entitlements }] });
    const failures = await this.unofferedMemberEntitlements(asMembers(olds), asMembers(news), byHolding ? held : undefined, "entitlements");
    if (news.adoptExisting !== true || byHolding) return failures.map((f) => (f.property ? { ...f, property: "entitlements" } : f));
    const who = knownString(news.userId) ? `user ${news.userId}` : "a user not known yet";
    for (const f of failures.filter((f) => f.property)) {
      this.#warn(`entitlements of ${who}: ${f.reason} Let through because adoptExisting is set: the membership may hold it already.`);
    }
    return failures.filter((f) => !f.property);
  }

  /**
   * The check failures of an `IntegrationMembers` (inputs that passed validation): one per member whose set is new (not in
   * `olds` with that set, another integration, or a user id not known yet) and names an id not offered (`members[i].entitlements`).
   * With `held` (what members hold now), a member who holds every such id already is let through with a warning: the
   * integration stopped offering it after granting it (an exported project's first preview); a misspelt id still fails.
   * `property`: what a failure names (default `members[i].entitlements`).
   */
  async unofferedMemberEntitlements(olds: Props, news: Props, held?: HeldNow, property?: string): Promise<CheckFailure[]> {
    const { integrationId, members } = news;
    if (!knownString(integrationId) || !Array.isArray(members)) return [];
    const priorSets = new Map<string, unknown>();
    if (knownString(olds.integrationId) && sameId(olds.integrationId, integrationId) && Array.isArray(olds.members)) {
      for (const m of olds.members) if (isRecord(m) && typeof m.userId === "string") priorSets.set(idOf(m.userId), m.entitlements);
    }
    // A member whose user is not known yet (made by the same program) is checked too: a wrong id would else fail only in up.
    const fresh = members.flatMap((m, i) =>
      isRecord(m) && knownSet(m.entitlements) && !(knownString(m.userId) && sameSet(priorSets.get(idOf(m.userId)), m.entitlements))
        ? [{ i, entitlements: m.entitlements, userId: knownString(m.userId) ? m.userId : undefined }]
        : [],
    );
    if (fresh.length === 0) return [];
    let offered: string[] | undefined;
    try {
      offered = await this.#offered(integrationId);
    } catch (error) {
      // A refused key, or one not shown integrations, fails the whole check: not thrown (the host would print its stack), a
      // failure of no one property.
      if (UnauthorizedError.isInstance(error) || ConfigurationError.isInstance(error)) return [{ property: "", reason: error.message }];
      throw error;
    }
    const failing = fresh.flatMap(({ i, entitlements, userId }) => {
      const unknown = entitlementSet(entitlements).filter((id) => !offered?.includes(id));
      if (!offered || unknown.length === 0) return [];
      const failure = {
        property: property ?? `members[${i}].entitlements`,
        reason: unoffered(integrationId, unknown, closestFirst(unknown, offered)),
      };
      return [{ failure, unknown, userId }];
    });
    const known = failing.flatMap((f) => (f.userId === undefined ? [] : [f.userId]));
    if (!held || known.length === 0) return failing.map((f) => f.failure);
    let now: ReadonlyMap<string, readonly string[] | undefined>;
    try {
      now = await held(known);
    } catch {
      // Unread: the failures stand (each is true: the catalogue does not offer the id).
      return failing.map((f) => f.failure);
    }
    return failing.flatMap(({ failure, unknown, userId }) => {
      const holds = userId === undefined ? undefined : now.get(idOf(userId));
      if (!holds || !unknown.every((id) => holds.includes(id))) return [failure];
      this.#warn(`${failure.property} of user ${userId}: ${failure.reason} ${heldAlready(unknown)}`);
      return [];
    });
  }

  /** The offered ids, or `undefined` (with a warning, once per integration) when they cannot be told. */
  #offered(integrationId: string): Promise<string[] | undefined> {
    let client: WorkspaceAccessClient;
    try {
      client = this.#client();
    } catch (error) {
      // No usable settings: the create or update will say so with the fix; the check gives way.
      const why = error instanceof Error ? error.message : String(error);
      if (!this.#warnedSettings.has(why)) {
        this.#warnedSettings.add(why);
        this.#warn(`Entitlements were not checked against their integrations' catalogues (${why}).`);
      }
      return Promise.resolve(undefined);
    }
    const key = idOf(integrationId);
    const offered = this.#catalogues.get(key) ?? this.#read(client, integrationId);
    this.#catalogues.set(key, offered);
    return offered;
  }

  /** The offered ids, or `undefined` with a warning (once per integration: the catalogues' cache keeps the answer). */
  async #read(client: WorkspaceAccessClient, integrationId: string): Promise<string[] | undefined> {
    let why: unknown;
    let notFound = false;
    let gone = false;
    try {
      const catalogue = await unlessNotFound(client.integrations.listEntitlements(integrationId));
      // An empty catalogue more likely means the service does not publish it than that nothing may be granted.
      if (catalogue && catalogue.length > 0) return catalogue.map((entitlement) => entitlement.id);
      notFound = !catalogue;
      why = new Error("its catalogue is empty");
    } catch (error) {
      if (UnauthorizedError.isInstance(error) && (await refusedOutright(client, integrationId)))
        throw refusedKey(error, integrationId, this.#keySource);
      why = error;
    }
    if (notFound) ({ why, gone } = await whyNoCatalogue(client, integrationId));
    this.#warn(entitlementsNotChecked(integrationId, why, gone));
    return undefined;
  }
}
