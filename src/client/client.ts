import { systemClock } from "./clock";
import { HttpTransport } from "./transport";
import { IntegrationsApi } from "./integrations";
import { JobsApi } from "./jobs";
import type { JobDeadline } from "./models";
import { type AddressParts, type ClientOptions, type ResolvedSettings, resolveSettings, type SettingName } from "./settings";
import { UsersApi } from "./users";

/**
 * A client for one workspace. Holds one keep-alive connection pool; call {@link close} when done
 * (a process that exits anyway need not).
 *
 * ```ts
 * const client = new WorkspaceAccessClient({ baseUrl: "https://acme.example.com/api/v1/", apiKey });
 * for await (const user of client.users.list()) console.log(user.email);
 * ```
 */
export class WorkspaceAccessClient {
  /** Workspace users. */
  readonly users: UsersApi;
  /** Integrations and their members' entitlements. */
  readonly integrations: IntegrationsApi;
  /** Jobs: read one, or wait for one. */
  readonly jobs: JobsApi;
  readonly #http: HttpTransport;

  /**
   * `options` are checked (a `ConfigurationError` names the first at fault); settings already resolved are taken as they are.
   * `settingName`: how messages name a setting, as its user sets it (default: the key, `baseUrl`); `undefined` for one the user
   * cannot set, which messages then leave unnamed. `addressBuiltFrom`: the two settings the base URL was built from, as its
   * user sets them, if it was (messages about the address name them, and `settingName("baseUrl")` as the way to give it
   * whole). `jobDeadline` is for the package's own provider, not a public option: the end of the job waits of the operation
   * under way (a resource's `customTimeouts`).
   */
  constructor(
    options: (ClientOptions | (ResolvedSettings & Pick<ClientOptions, "clock" | "random" | "logger">)) & {
      settingName?: SettingName;
      addressBuiltFrom?: AddressParts;
      jobDeadline?: () => JobDeadline | undefined;
    },
  ) {
    const settings = resolveSettings(options);
    this.#http = new HttpTransport(settings, {
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      logger: options.logger,
      settingName: options.settingName ?? ((key) => key),
      addressBuiltFrom: options.addressBuiltFrom,
      jobDeadline: options.jobDeadline,
    });
    this.jobs = new JobsApi(this.#http);
    this.users = new UsersApi(this.#http, this.jobs);
    this.integrations = new IntegrationsApi(this.#http, this.jobs);
  }

  /** HTTP requests sent so far, retries included. */
  get requestCount(): number {
    return this.#http.requestCount;
  }

  /** 429 answers received so far. */
  get rateLimitedCount(): number {
    return this.#http.pacer.rateLimited;
  }

  /** The base URL requests go to. */
  get baseUrl(): string {
    return this.#http.settings.baseUrl.href;
  }

  /**
   * Writes what this client learnt for the next process (a rate limit, written in the background as it is learnt), without
   * closing anything: for a process that may be ended at any moment after (a provider host). Never throws.
   */
  async settle(): Promise<void> {
    await this.#http.settle();
  }

  /** Closes the connection pool. */
  async close(): Promise<void> {
    await this.#http.close();
  }
}
