import {
  acceptedUnread,
  ConfigurationError,
  contractIssue,
  InvalidResponseError,
  JobFailedError,
  JobTimeoutError,
  NotFoundError,
  withMessage,
} from "./errors";
import type { HttpTransport, RequestSpec } from "./transport";
import { type Job, type JobDeadline, toJob } from "./models";
import { pathOf } from "./path";
import { redactError } from "./redact";
import { schemas } from "./schemas";
import { describeNeeds, describeScopes, SCOPES } from "./scopes";

/** How to wait for a job. */
export interface WaitOptions {
  /** Give up after this long (default: the deadline, else the client's `jobTimeoutSeconds`). */
  timeoutMs?: number;
  /** Give up at this end (default: the client's `jobDeadline` of the operation under way, if any). */
  deadline?: JobDeadline;
  /** Called with each polled state, e.g. to report progress. */
  onPoll?: (job: Job) => void;
}

/** A job a write started, and a way to wait for it; a write answered without a job is done already (`id` and `wait`'s answer `null`). */
export interface JobHandle {
  id: string | null;
  status: string | null;
  /** Polls until `finished` (resolves) or `error` (rejects with {@link JobFailedError}). */
  wait(options?: WaitOptions): Promise<Job | null>;
}

/** The request a job was answered to: its method, and its path (relative to the base URL, or absolute). */
export type Write = { method: string; path: string };

/** The shortest first poll the client learns to make (see {@link JobsApi.wait}). */
export const MIN_FIRST_POLL_MS = 2;
/**
 * The first poll of a client that has learnt nothing yet, and the second's delay after it: two quick looks before
 * `jobPollIntervalMs`'s schedule, for a service that ends its jobs at once (the emulator's are done at their second poll).
 * A job of 10 to 450 ms is seen at the third poll, as with later probes; the contract's jobs are automations
 * (`errorDetails.screenshotUrl`) that take seconds, and cost the same two probes whenever they fall.
 */
export const PROBE_POLL_MS = 5;
/**
 * The probes' step that the schedule after them keeps to (or the setting, if shorter): the third poll comes where it would
 * after probes this far apart, and the polls after it as they did (with the defaults at 450 and 1,050 ms: a job of 1 s takes
 * 4 polls, a job of seconds is seen when it was with probes at 25 and 50 ms).
 */
const PROBE_STEP_MS = 25;
/** How much shorter the next first poll is after a job done within two polls; a slower job: `jobPollIntervalMs` again. */
const FIRST_POLL_SHRINK = 4;
/**
 * How long a job a write answered with just now is read again while its reads answer 404, before the 404 is taken to mean what
 * it says: a service whose job store lags its writes (the contract does not rule it out) shows the job some hundreds of ms
 * after the write answered with it. Never past the wait's own end.
 */
export const JOB_READABLE_GRACE_MS = 5_000;

/** `GET /jobs/{id}` and waiting for jobs. */
export class JobsApi {
  readonly #http: HttpTransport;
  /** How long a wait sleeps before its first poll, learnt from the jobs waited for (`undefined`: nothing learnt yet). */
  #firstPollMs: number | undefined;
  /** Whether a job read answered this key: Read automated jobs is disclosed to it, and a job's 404 is the job's. */
  #jobsShown = false;

  /** @internal Built by {@link WorkspaceAccessClient}. */
  constructor(http: HttpTransport) {
    this.#http = http;
  }

  /** Reads a job. 404 raises {@link NotFoundError}, saying what it may mean (see {@link #unknown}). */
  async get(id: string): Promise<Job> {
    return this.#read(id);
  }

  /** {@link get}; `waitEnds`: a poll's, the end of the wait it serves, which a 429 is not waited past (`RequestSpec.waitEnds`). */
  async #read(id: string, waitEnds?: RequestSpec["waitEnds"]): Promise<Job> {
    const path = pathOf("jobs", [id, "job id"]);
    const { data } = await this.#http.request(
      { method: "GET", path, scopes: [SCOPES.readJobs], notFound: () => this.#unknown(id), ...(waitEnds && { waitEnds }) },
      schemas().job,
    );
    this.#jobsShown = true;
    return toJob(data.data);
  }

  /**
   * A job read's 404, said of the job `id` with what to do. Before any job read answered this key it is no such job, or a key the
   * service does not disclose jobs to (its 404 for a missing scope): nothing cheap tells the two apart (no listing of jobs to
   * probe, and a job's read needs its id), so both are named; after one answered, the key reads jobs, and the job's alone is.
   */
  #unknown(id: string): string {
    const workspace = `workspace at ${this.#http.settings.baseUrl.host}`;
    const causes =
      "a wrong id (check it against the write that answered with it, such as a resource's lastJobId), a job of another " +
      "workspace (read it with that workspace's address and key), or one the service no longer keeps after it ended (no read " +
      "brings it back)";
    const named = this.#http.setting("apiKey");
    return this.#jobsShown
      ? `The ${workspace} has no job ${id} (this key reads jobs: a job read answered it): ${causes}.`
      : `The job ${id} is unknown to this key, for one of two reasons the service does not tell apart. Either the ` +
          `${workspace} has no such job: ${causes}. Or ${named === undefined ? "the API key" : `the key in ${named}`} lacks ` +
          `${describeScopes([SCOPES.readJobs])}, and the service answers 404 (not disclosed), not 401 or 403, to a key lacking a ` +
          "scope: give the key that scope.";
  }

  /**
   * Polls a job until `finished` ({@link JobFailedError} on `error`, {@link JobTimeoutError} at the timeout or the deadline), every interval ×1.5, the
   * first learnt ({@link PROBE_POLL_MS}): a create holds an engine `--parallel` slot till its job is done, so quick jobs must not cost 625 ms.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    return this.#wait(id, options);
  }

  /**
   * {@link wait}; `write`: the request that answered with the job just now (its path relative), whose job cannot have ended
   * and been forgotten by its first reads. Until one finds it, a 404 may be a job store lagging the write, so the job is read
   * again on the usual schedule for {@link JOB_READABLE_GRACE_MS}; a 404 through that grace, before any job answered this key,
   * is the service hiding jobs from it. `known`: the job's status that answer gave, the last status a wait ended before any
   * poll reports (without it, none: a status nobody read is not reported).
   */
  async #wait(id: string, options: WaitOptions, write?: Write, known?: string | null): Promise<Job> {
    const { settings, deps } = this.#http;
    const end = options.timeoutMs === undefined ? (options.deadline ?? deps.jobDeadline?.()) : undefined;
    const timeoutMs = options.timeoutMs ?? (end ? Math.max(0, end.at - deps.clock.now()) : settings.jobTimeoutSeconds * 1000);
    // NaN would never end the wait (no deadline passes), and poll without pause (no interval is shorter than NaN).
    if (!(timeoutMs >= 0)) throw new RangeError(`timeoutMs must be a number of at least 0, got ${timeoutMs}`);
    const start = deps.clock.now();
    const deadline = start + timeoutMs;
    // A write's job unread so far: its 404s are read again until the grace ends (see `write` above).
    let hidden = write !== undefined;
    // A 404 seen in the grace: the schedule's sleeps then end at the grace's end at the latest (before it, none is cut short).
    let notFoundSeen = false;
    const graceEnd = Math.min(start + JOB_READABLE_GRACE_MS, deadline);
    // The wait ends before the grace would: a 404 then is the wait's end coming first, not a grace gone by.
    const graceCut = deadline < start + JOB_READABLE_GRACE_MS;
    const probing = this.#firstPollMs === undefined;
    const first = Math.min(this.#firstPollMs ?? PROBE_POLL_MS, settings.jobPollIntervalMs);
    const step = Math.min(PROBE_STEP_MS, settings.jobPollIntervalMs);
    let interval = first;
    let polls = 0;
    let last = known ?? null;
    // A timeout the caller gave is not the setting's: raising the setting would not lengthen it.
    const late = () => {
      const setting = options.timeoutMs === undefined ? this.#http.setting("jobTimeoutSeconds") : undefined;
      return new JobTimeoutError(id, last, timeoutMs / 1000, setting, this.#http.redact, end);
    };
    // A poll's 429 asking to wait past the end, or a poll the client holds past it, ends the wait at its end, saying why,
    // rather than minutes after it.
    const ended = (lastTry: Error) => {
      const error = late();
      error.message += ` Its last poll ${lastTry.message.replace(/^GET \S+ /, "")}`;
      return error;
    };
    for (;;) {
      const remaining = deadline - deps.clock.now();
      // A wait whose end passed before it began (a resource's customTimeouts spent in a batch window) reads the job once: the
      // status it reports was seen, and a job done by then is not called late.
      if (remaining <= 0 && polls > 0) throw late();
      // While the write's job is unread, the grace's last read comes at its end: one still unreadable fails then, not later.
      const room = hidden && notFoundSeen ? graceEnd - deps.clock.now() : remaining;
      // The sleep before the third poll of a probing wait adds what probes sooner than `step` saved (see PROBE_STEP_MS).
      const catchUp = probing && polls === 2 ? 2 * (step - first) : 0;
      if (remaining > 0) await deps.clock.sleep(Math.min(interval + catchUp, room));
      // Probing: two probes `first` apart (a quick job: 10 ms), then the setting's schedule from its second step, as after
      // probes `step` apart (the third poll at 450 ms, the fourth at 1,050; a job of 1 s: 4 polls).
      const grown = probing && polls === 1 ? Math.round(settings.jobPollIntervalMs * 1.5) + step : Math.round(interval * 1.5);
      interval = probing && polls === 0 ? first : Math.min(grown, settings.jobPollMaxIntervalMs);
      // The one read of a wait whose end passed is held by the client's pace as any request: it is what tells done from late.
      const job = await this.#read(id, { at: deadline, ended, ...(remaining <= 0 && { once: true }) }).catch((error: unknown) => {
        if (!hidden || write === undefined || !NotFoundError.isInstance(error)) throw error;
        const now = deps.clock.now();
        if (now >= graceEnd && graceCut) throw this.#lateUnread(late(), now - start, polls + 1);
        if (now >= graceEnd) throw this.#hiddenThrough(error, now - start, polls + 1, write);
        notFoundSeen = true;
        return null;
      });
      // A 404 in the grace counts as a poll for the schedule and what is learnt: a job a lagging store hides is no quick one.
      polls++;
      if (job === null) continue;
      hidden = false;
      if (job.status === null) {
        const path = new URL(pathOf("jobs", [id, "job id"]), settings.baseUrl).pathname;
        const message = `The job ${id} has no status (field "data.attributes.status"): it cannot be waited for.`;
        // The id is the service's text (a write's answer), redacted as in the other errors of a wait.
        const error = new InvalidResponseError(message, { method: "GET", path, status: 200, field: "data.attributes.status" });
        throw redactError(error, this.#http.redact);
      }
      last = job.status;
      options.onPoll?.(job);
      if (job.status === "finished") {
        this.#learn(first, polls);
        return job;
      }
      if (job.status === "error") throw new JobFailedError(job, this.#http.redact);
    }
  }

  /** After a job done at poll `polls` of a wait whose first poll came after `first` ms (see {@link wait}). */
  #learn(first: number, polls: number): void {
    if (polls <= 2) this.#firstPollMs = Math.max(MIN_FIRST_POLL_MS, Math.round(first / FIRST_POLL_SHRINK));
    // A slow job: back to the setting at once (a job of 250 ms would cost 12 polls from 2 ms).
    else this.#firstPollMs = this.#http.settings.jobPollIntervalMs;
  }

  /**
   * `late`, a wait that ended before {@link JOB_READABLE_GRACE_MS} with every read of its job answering 404 (`reads` over `ms`):
   * a timeout, saying so, not a verdict on the key (a lagging job store may show the job later; the write was accepted).
   */
  #lateUnread(late: JobTimeoutError, ms: number, reads: number): JobTimeoutError {
    const not = reads === 1 ? "its one read" : `all ${reads} of its reads`;
    return withMessage(
      late,
      `${late.message} Over those ${ms / 1000} s ${not} answered 404 (the job not shown yet: a job store slower than the wait, ` +
        `or a key not shown jobs, which a wait of ${JOB_READABLE_GRACE_MS / 1000} s or more would tell apart). The write was accepted.`,
    );
  }

  /**
   * `notFound`, the last of a wait's reads that all answered 404, `reads` over `ms`, to a job `write` answered with just now:
   * a job just started has not ended and been forgotten, and a lagging job store would have shown it within the grace. Before
   * any job read answered this key, that is the service's "not disclosed" to a key lacking Read automated jobs (the contract's
   * 401/403 would say so); after, the key reads jobs, and it is the job's own 404 ({@link #unknown}), saying how long it lasted.
   */
  #hiddenThrough(notFound: NotFoundError, ms: number, reads: number, write: Write): Error {
    const request = `${write.method} ${new URL(write.path, this.#http.settings.baseUrl).pathname}`;
    const lasted = `for ${ms / 1000} s (${reads} ${reads === 1 ? "read" : "reads"}) after ${request} answered with it`;
    if (this.#jobsShown) return withMessage(notFound, `${notFound.message} It kept answering 404 ${this.#http.redact(lasted)}.`);
    const named = this.#http.setting("apiKey");
    const message =
      `${notFound.method} ${notFound.path} kept answering 404 ${lasted}, before any job answered this key: a job just started has ` +
      "not ended and been forgotten, and a service slow to show its jobs shows them sooner, so most likely the service does not " +
      "disclose jobs to this key (it answers 404, not disclosed, to a key lacking a scope). Give " +
      `${named === undefined ? "the API key" : `the key in ${named}`} ${describeNeeds([SCOPES.readJobs])}, which waiting for a ` +
      "job needs. The write was accepted: its job may still finish. (If the key holds that scope already, the service is slower " +
      `than ${JOB_READABLE_GRACE_MS / 1000} s to show its jobs: read the job later with getJob.)`;
    return new ConfigurationError(this.#http.redact(message), "apiKey");
  }

  /**
   * Waits for a job a write answered with, as {@link wait} unless it is finished (one in `error` is polled for its details);
   * `write`, the request that answered with it just now, tells a 404 at its first reads apart.
   */
  async until(answer: Job, options: WaitOptions = {}, write?: Write): Promise<Job> {
    return answer.status === "finished" ? answer : await this.#wait(answer.id, options, write, answer.status);
  }

  /** The job a write answered with (no job: the write is done, `id: null`); a job not of the contract raises, naming the field. @internal */
  handleOf(answer: { status: number; data: unknown }, method: string, path: string): JobHandle {
    const record = (answer.data as { data?: unknown } | undefined)?.data;
    if (!record || typeof record !== "object" || (record as { type?: unknown }).type !== "job") {
      return { id: null, status: null, wait: async () => null };
    }
    const parsed = schemas().jobAnswer.safeParse(record);
    if (parsed.success) {
      const job = toJob(parsed.data);
      return { id: job.id, status: job.status, wait: (options) => this.until(job, options, { method, path }) };
    }
    const { field, said } = contractIssue(parsed.error.issues, ["data"]);
    const where = new URL(path, this.#http.settings.baseUrl).pathname;
    // A success status: the write landed, though its job cannot be followed.
    const message = this.#http.redact(
      `${method} ${where} answered ${answer.status} with a job that ${said}. ${acceptedUnread(answer.status)}`,
    );
    throw new InvalidResponseError(message, { method, path: where, status: answer.status, field });
  }
}
