/**
 * Assembles an emulator: state, jobs, keys, faults, rate limit and the HTTP server, and the
 * {@link Emulator} handle tests drive it through.
 */
import { skewedClock, systemClock } from "./clock";
import { FaultQueue, InviteFailures } from "./faults";
import { JobEngine } from "./jobs";
import { KeyRing, randomApiKey } from "./keys";
import { adversarialQuirks, ListWalks } from "./quirks";
import { RateLimiter } from "./rate-limit";
import { Router } from "./router";
import { allRoutes } from "./routes/index";
import { isUserCreate } from "./routes/users";
import { applySeed, defaultSeed } from "./seed";
import { EmulatorServer, RequestLog } from "./server";
import { integrationView, memberView, userView } from "./rows";
import { idKey, Store } from "./store";
import { formatTimestamp } from "./time";
import type { EmulatedJob, Emulator, EmulatorOptions, EmulatorQuirks, EmulatorSeed, PageHook } from "./types";
import type { JobRow } from "./jobs";
import { ADVERSARIAL_IDS, adversarialSeed, populatedSeed } from "./worlds";

/** The name jobs give as their creator: the key's owner, which the emulator does not model. */
const OPERATOR_NAME = "Emulator API key";

function jobView(row: JobRow): EmulatedJob {
  return {
    id: row.id,
    status: row.status,
    workflowType: row.workflowType,
    trigger: row.trigger,
    integrationId: row.account?.id ?? null,
    createdAt: formatTimestamp(row.createdAt),
    updatedAt: formatTimestamp(row.updatedAt),
    polls: row.polls,
    errorDetails: { ...row.errorDetails },
    payload: structuredClone(row.payload),
    response: structuredClone(row.response),
  };
}

/** Marks the adversarial world's other-admin records: what a page shift may remove. */
function markOtherAdmin(store: Store): void {
  store.otherAdmin.active = true;
  const others = new Set<string>(ADVERSARIAL_IDS.otherAdminUsers);
  for (const id of others) store.otherAdmin.users.add(id);
  store.otherAdmin.integrations.add(ADVERSARIAL_IDS.otherAdminIntegration);
  for (const integration of store.listIntegrations()) {
    for (const userId of integration.members.keys()) {
      if (others.has(userId)) store.otherAdmin.members.add(`${integration.id} ${userId}`);
    }
  }
}

/** The seed of a built-in world; throws naming the worlds for any other name (a caller in plain JavaScript may send one). */
function worldSeed(world: EmulatorOptions["world"]): EmulatorSeed {
  switch (world) {
    case undefined:
      return defaultSeed();
    case "empty":
      return {};
    case "populated":
      return populatedSeed();
    case "adversarial":
      return adversarialSeed();
    default:
      throw new Error(
        `emulator: world must be "empty", "populated" or "adversarial" (leave it out for the default world), got ${JSON.stringify(world)}`,
      );
  }
}

/**
 * Starts an emulator listening on `options.host`:`options.port` (default 127.0.0.1, an ephemeral
 * port), holding `options.seed` or `options.world`: by default the world of {@link defaultSeed}, like the command;
 * `{ seed: {} }` or `{ world: "empty" }` starts with no users and no integrations.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  // The same worlds as the command's: `seed: {}` and `world: "empty"` start empty.
  if (options.seed !== undefined && options.world !== undefined) throw new Error("emulator: give a seed or a world, not both");
  const world = options.world;
  // The live quirks: the adversarial world's, overridden by the options'.
  const quirks: EmulatorQuirks = { ...(world === "adversarial" ? adversarialQuirks() : {}), ...options.quirks };
  const clock = options.clock ?? systemClock;
  // The service's own clock (`clockSkew`): what records, jobs, `Date` and a dated `Retry-After` read.
  const service = skewedClock(clock, () => quirks.clockSkew);
  const store = new Store(() => service.now());
  applySeed(store, options.seed ?? worldSeed(world));
  if (world === "adversarial") markOtherAdmin(store);
  const walks = new ListWalks(quirks);
  const jobs = new JobEngine(options.job, { id: store.operatorId, name: OPERATOR_NAME }, service);
  const apiKey = options.apiKey ?? randomApiKey();
  const keys = new KeyRing(apiKey, options.keys);
  const limiter = new RateLimiter(options.rateLimit, clock);
  const faults = new FaultQueue();
  const inviteFailures = new InviteFailures();
  if (options.batchInviteFailure !== undefined) inviteFailures.mode = options.batchInviteFailure;
  const log = new RequestLog();
  const settings = { missingScopeStatus: options.missingScopeStatus ?? 403 };
  const state = {
    store,
    jobs,
    userWritesAsJobs: options.userWritesAsJobs ?? false,
    userWritesNoContent: options.userWriteAnswer === "no-content",
    inviteFailures,
    quirks,
    walks,
    scopeTable: options.scopeTable ?? "document",
  };
  const routes = options.userCreate === false ? allRoutes.filter((route) => !isUserCreate(route)) : allRoutes;
  const server = new EmulatorServer({
    ...{ world: state, router: new Router(routes), keys, faults, limiter, log, settings, clock, service },
    onAnswered: options.onAnswered,
  });

  const host = options.host ?? "127.0.0.1";
  const port = await server.listen(options.port ?? 0, host);
  // An IPv6 literal needs brackets in a URL.
  const urlHost = host.includes(":") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${urlHost}:${port}/api/v1/`,
    apiKey,
    port,
    close() {
      closing ??= (async () => {
        jobs.dispose();
        await server.close();
      })();
      return closing;
    },
    get requests() {
      return [...log.entries];
    },
    clearRequests() {
      log.entries = [];
    },
    fault(f) {
      faults.add(f);
    },
    clearFaults() {
      faults.clear();
    },
    setRateLimit(limit) {
      limiter.set(limit);
    },
    get stats() {
      return { rateLimited: log.rateLimited, requests: log.requests };
    },
    addKey(key, scopes) {
      keys.add(key, scopes);
    },
    setMissingScopeStatus(status) {
      settings.missingScopeStatus = status;
    },
    users: usersOf(store),
    integrations: integrationsOf(store),
    quirks,
    onPage(hook) {
      // Wrapped, so the same function added twice is removed once per call.
      const entry: PageHook = (list) => hook(list);
      walks.hooks.add(entry);
      return () => {
        walks.hooks.delete(entry);
      };
    },
    jobs: jobsOf(jobs, inviteFailures),
  };
}

/** The handle on the store's users that {@link startEmulator} hands out: copies in, copies out. */
function usersOf(store: Store): Emulator["users"] {
  return {
    list: () => store.listUsers().map(userView),
    get: (id) => {
      const row = store.user(id);
      return row === undefined ? undefined : userView(row);
    },
    findByEmail: (email) => {
      const row = store.userByEmail(email);
      return row === undefined ? undefined : userView(row);
    },
    add: (u) => userView(store.addUser(u)),
    update: (id, patch) => userView(store.updateUser(id, patch)),
    remove: (id) => {
      store.removeUser(id);
    },
  };
}

/** The handle on the store's integrations and their members. */
function integrationsOf(store: Store): Emulator["integrations"] {
  return {
    add: (i) => integrationView(store.addIntegration(i)),
    get: (id) => {
      const row = store.integration(id);
      return row === undefined ? undefined : integrationView(row);
    },
    list: () => store.listIntegrations().map(integrationView),
    members: (integrationId) => {
      const row = store.integration(integrationId);
      if (row === undefined) throw new Error(`emulator: no integration with id ${integrationId}`);
      return [...row.members.values()].map(memberView);
    },
    setMember: (integrationId, userId, m) => {
      store.setMember(integrationId, userId, m);
    },
    removeMember: (integrationId, userId) => {
      store.removeMember(integrationId, userId);
    },
    remove: (integrationId) => {
      store.removeIntegration(integrationId);
    },
  };
}

/** The handle on the jobs: what they are, and how the next ones end. */
function jobsOf(jobs: JobEngine, inviteFailures: InviteFailures): Emulator["jobs"] {
  return {
    get: (id) => {
      const row = jobs.get(idKey(id));
      return row === undefined ? undefined : jobView(row);
    },
    list: () => jobs.list().map(jobView),
    failNext: (count, errorDetails) => jobs.failNext(count, errorDetails),
    failInvitesOf: (userIds, mode) => inviteFailures.add(userIds.map(idKey), mode),
    clearInviteFailures: () => inviteFailures.clear(),
    hangNext: (count) => jobs.hangNext(count),
    release: (id) => jobs.release(idKey(id)),
    setTiming: (timing) => jobs.setTiming(timing),
  };
}
