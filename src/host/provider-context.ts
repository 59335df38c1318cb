/**
 * The provider context: what one dynamic-provider host process knows and holds, built by
 * `configure` and handed to every handler. `configure` never throws (the host caches the provider
 * before calling it and never retries): a bad setting fails the request that needs it, naming the
 * key and the fix, and `check` reports the same problems before anything is sent.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, type JobDeadline, systemClock, WorkspaceAccessClient } from "../client";
import { EntitlementCatalogue } from "./entitlement-catalogue";
import { InviteBatcher } from "./membership/invite-batcher";
import { MembershipViews } from "./membership/membership-view";
import { ReadCache } from "./read-cache";
import { type AddressNames, workspaceAddress } from "./recorded-workspace";
import { keyRedactorOf } from "../shared/hide-secrets";
import { hinted, type KeySource } from "../shared/hints";
import type { z } from "zod";
import { type CheckFailure, checkInputs, parseInputs, type Props } from "../shared/inputs";
import {
  allProblems,
  CONFIG_NAMESPACE,
  keySourceOf,
  type ProviderSettings,
  type RawSettings,
  readRawSettings,
  renderProblem,
  resolveProviderSettings,
  settingNamesOf,
} from "../shared/settings";

/** The client of a context, with the read cache, the integrations' membership views and the invitation batches built on it. */
export interface Connection {
  readonly client: WorkspaceAccessClient;
  readonly cache: ReadCache;
  /** Each integration's membership: its shared listings, its one member read, its invalidation (`membership-view.ts`). */
  readonly memberships: MembershipViews;
  readonly invites: InviteBatcher;
}

/** What a {@link ProviderContext} is built with besides the stack config: tests inject a clock and a warning sink. */
export interface ContextOptions {
  /** Time for retries, rate-limit waits, job polls and the read cache. Default: the wall clock. */
  clock?: Clock;
  /** How warnings are given. Default: `pulumi.log.warn`, loaded when first needed. */
  warn?: (message: string) => void;
  /** How information is given (an adoption that wrote nothing). Default: `pulumi.log.info`. */
  info?: (message: string) => void;
  /** The environment the settings fall back to. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The stack config as the host hands it to `configure`: a `get`, and (not in its public type) every key and the project's name. */
type StackConfig = pulumi.dynamic.Config;

/** How many outputs of `check` are kept per schema for the create or update that follows (`parseInputs`). */
const CHECKED_KEPT = 8;

/** One provider process's context. Nothing in it captures the API key into state; its client is built on first use. */
export class ProviderContext {
  readonly clock: Clock;
  readonly warn: (message: string) => void;
  readonly info: (message: string) => void;
  /**
   * `text` without the key in force, whole, in its forms or in any run of 8 of its characters (`keyRedactorOf`): for what
   * the engine is told. The package's messages quote the service's texts (a job's id, a record's), which a gateway may make
   * of the key; warnings and information pass here, and every handler's error (`provider-runtime.ts`).
   */
  readonly redact: (text: string) => string;
  readonly #raw: RawSettings;
  /** Where the key in force came from, for the hint a refused key gets: the stack config or the environment. */
  readonly keySource: KeySource | undefined;
  /** The settings' problems as check failures, worked out once: every `check` asks. */
  readonly #failures: readonly CheckFailure[];
  /**
   * What this context was built from, to tell whether a second `configure` brings another config: private, as it holds the
   * API key (a context logged or inspected must not print it).
   */
  readonly #built: string;
  /** The keys (`takeovers.ts`) of what resources of this deployment claim, so that a replaced resource's delete leaves it. */
  readonly takeovers = new Set<string>();
  /** The keys (`takeovers.ts`) of the records `check` saw the program declare in this deployment: only those a diff claims. */
  readonly declared = new Set<string>();
  /** The keys of memberships a diff of this deployment replaces for a declared role: their delete is the program's to make. */
  readonly roleReplacements = new Set<string>();
  /**
   * The records a delete of this deployment left in place (adopted, or an owner the program did not declare), by key
   * (`takeovers.ts`; a user's by its email): a create of the same record later in the deployment is a replacement that deletes
   * first (a forced `--replace`), which takes the record back as the deleted resource held it instead of failing on it.
   */
  readonly leftInPlace = new Map<string, { adopted: boolean; userId?: string }>();
  /**
   * The keys (`takeovers.ts`) of the records a delete of this deployment removed (an `IntegrationEntitlement`'s membership, a
   * `User`'s user): a create of the same one later in the deployment is a replacement that deleted first, which makes it anew
   * whatever `import` the program still gives (Pulumi ignores `import` for a resource in the state).
   */
  readonly removedRecords = new Set<string>();
  /** The integrations' entitlement catalogues, read once each for `check` (`entitlement-catalogue.ts`). */
  readonly catalogue: EntitlementCatalogue;
  #connection: Connection | undefined;
  /** The settings' address in its one form (`workspace()`), worked out once; `null`: the settings are not usable. */
  #workspace: string | null | undefined;
  /** The inputs `check` returned lately, by schema (the newest first): the create or update the engine then calls gets them back. */
  readonly #checked = new Map<z.ZodObject, Props[]>();
  /**
   * The end of the job waits of the operation each call belongs to (a resource's `customTimeouts`; none: each wait's
   * `jobTimeoutSeconds`). The engine runs many resources' operations at once in this one process, each with its own end, and
   * the waits sit deep in the client (a user create's); an async context carries it to them, set once by `bounded`.
   */
  readonly #deadlines = new AsyncLocalStorage<JobDeadline | undefined>();
  /**
   * Whether the engine checked a resource in this process: it checks what a program declares, with the stack config in force.
   * A process that checked none (a `pulumi refresh` or `destroy`, which run no program) may run with the provider configuration
   * the state recorded at the last `pulumi up`, which a fix of the stack config since then does not reach.
   */
  #checkSeen = false;

  constructor(config: StackConfig | undefined, options: ContextOptions = {}) {
    const env = options.env ?? process.env;
    this.clock = options.clock ?? systemClock;
    this.#raw = readRawSettings((key) => config?.get(key), env);
    this.redact = keyRedactorOf(this.#raw);
    const warn = options.warn ?? ((message) => void (require("@pulumi/pulumi/log") as typeof import("@pulumi/pulumi/log")).warn(message));
    const info = options.info ?? ((message) => void (require("@pulumi/pulumi/log") as typeof import("@pulumi/pulumi/log")).info(message));
    this.warn = (message) => warn(this.redact(message));
    this.info = (message) => info(this.redact(message));
    this.keySource = keySourceOf(this.#raw);
    // Unconfigured (a unit test calling a handler directly) there is no stack config to check.
    const problems = config ? allProblems({ configuredKeys: stackConfigKeys(config), project: projectOf(config, env) }, this.#raw) : [];
    // Every problem of the keys, then the first of the values: what the first request would fail with.
    const firstValue = problems.findIndex((problem) => problem.kind !== "unknown" && problem.kind !== "project-name");
    this.#failures = problems
      .filter((_, index) => firstValue < 0 || index <= firstValue)
      .map((problem) => ({ property: "", reason: renderProblem(problem, "stack") }));
    this.#built = JSON.stringify([this.#raw, this.#failures]);
    this.catalogue = new EntitlementCatalogue(() => this.connection().client, this.warn, this.keySource);
  }

  /** For `check`: a failure per settings problem, so `pulumi preview` fails on them without a request. A copy: callers add theirs. */
  settingsFailures(): CheckFailure[] {
    return [...this.#failures];
  }

  /** Records that the engine checked a resource in this process (`providerOf`'s `check`): the stack config now is in force. */
  noteCheck(): void {
    this.#checkSeen = true;
  }

  /** Whether the configuration in force may be the state's, not the stack config now: no resource was checked in this process. */
  mayRunOnState(): boolean {
    return !this.#checkSeen;
  }

  /** What `check` returns for `news` against `schema` (`checkInputs`), the settings' failures first. */
  checkInputs(schema: z.ZodObject, news: Props): { inputs: Props; failures: CheckFailure[] } {
    const { inputs, failures, parsed } = checkInputs(schema, news);
    if (parsed) this.#checked.set(schema, [inputs, ...(this.#checked.get(schema) ?? [])].slice(0, CHECKED_KEPT));
    // The host writes `__provider` into the object `check` returns: it gets a copy, so the output kept still equals the inputs
    // the create is handed (which come without it).
    return { inputs: parsed ? { ...inputs } : inputs, failures: [...this.settingsFailures(), ...failures] };
  }

  /** The inputs of a create or update against `schema` (`parseInputs`): one `check` returned is taken as it is, once. */
  parseInputs<S extends z.ZodObject>(schema: S, news: Props): z.output<S> {
    const checked = this.#checked.get(schema) ?? [];
    const inputs = parseInputs(schema, news, checked);
    this.#checked.set(
      schema,
      checked.filter((output) => output !== inputs),
    );
    return inputs;
  }

  /** Whether `other` was built from the same config (a second `configure` of another resource type of the deployment). */
  builtLike(other: ProviderContext): boolean {
    return this.#built === other.#built;
  }

  /** The settings in force; a `ConfigurationError` naming the key and the fix when they are not usable. */
  settings(): ProviderSettings {
    return resolveProviderSettings(this.#raw);
  }

  /**
   * The workspace the settings in force name: their base URL in the one form a state records (`recorded-workspace.ts`).
   * `undefined` when the settings are not usable: each request fails on them, naming the key and the fix.
   */
  workspace(): string | undefined {
    if (this.#workspace === undefined) {
      try {
        this.#workspace = workspaceAddress(this.settings().client.baseUrl);
      } catch {
        this.#workspace = null;
      }
    }
    return this.#workspace ?? undefined;
  }

  /** How the settings in force name the address, names alone (`settingNamesOf`): for a message saying how to set it. */
  addressNames(): AddressNames {
    return settingNamesOf(this.#raw);
  }

  /**
   * Runs one operation of a resource whose job waits, every one it makes, end by `deadline` (its `customTimeouts`); without
   * one, each wait ends at `jobTimeoutSeconds`, as in a call made outside any operation.
   */
  bounded<T>(deadline: JobDeadline | undefined, operation: () => Promise<T>): Promise<T> {
    return this.#deadlines.run(deadline, operation);
  }

  /** The end of the job waits of the operation under way (`bounded`), if it has one. */
  deadline(): JobDeadline | undefined {
    return this.#deadlines.getStore();
  }

  /** What a message says to raise for a longer job wait in the operation under way: its `customTimeouts` entry, or the setting. */
  waitLimit(): string {
    return this.deadline()?.raise ?? `${CONFIG_NAMESPACE}:jobTimeoutSeconds`;
  }

  /** The client and what is built on it, created on first use. */
  connection(): Connection {
    if (!this.#connection) {
      const settings = this.settings();
      const jobDeadline = () => this.deadline();
      // Its messages name each setting where this process read it: the stack config or the environment.
      const client = new WorkspaceAccessClient({
        ...settings.client,
        clock: this.clock,
        ...settingNamesOf(this.#raw),
        jobDeadline,
      });
      const cache = new ReadCache(client, settings.readCacheSeconds * 1000, this.clock);
      this.#connection = {
        client,
        cache,
        // A user this process deletes takes their memberships with them: the views learn it from the users' cache.
        memberships: new MembershipViews(client, settings.readCacheSeconds * 1000, this.clock, cache.written),
        invites: new InviteBatcher(client, this.clock, jobDeadline),
      };
    }
    return this.#connection;
  }

  /** Whether the client was made (its first request sent, or about to be). */
  get connected(): boolean {
    return this.#connection !== undefined;
  }

  /** Writes what the client learnt for the next process, if one was made (`WorkspaceAccessClient.settle`). */
  async settle(): Promise<void> {
    await this.#connection?.client.settle();
  }

  /** Closes the client's connection pool, if one was made. */
  async close(): Promise<void> {
    await this.#connection?.client.close();
  }

  /**
   * Runs an operation that writes, adding the key hint to a 401/403; afterwards, succeeded or not (it may still land), the
   * lists it may have changed are forgotten: the users', and that integration's members' (without one, every integration's).
   */
  async withWrite<T>(operation: () => Promise<T>, integrationId?: string, userId?: string): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw hinted(error, false, this.keySource);
    } finally {
      this.#connection?.cache.invalidate();
      this.#connection?.memberships.written(integrationId, userId);
    }
  }
}

/** The keys of the stack config, from the host's `Config`'s `rawConfig` (its public type offers only `get`): none without it. */
function stackConfigKeys(config: StackConfig): string[] {
  const all = (config as { rawConfig?: unknown }).rawConfig;
  return all && typeof all === "object" ? Object.keys(all) : [];
}

/** The project's name: the host's `Config`'s `projectName` (its public type does not show it), else the engine's environment. */
function projectOf(config: StackConfig, env: NodeJS.ProcessEnv): string | undefined {
  const name = (config as { projectName?: unknown }).projectName;
  if (typeof name === "string" && name !== "") return name;
  return env["PULUMI_NODEJS_PROJECT"] || env["PULUMI_PROJECT"] || undefined;
}
