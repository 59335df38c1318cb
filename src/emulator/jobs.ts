/**
 * Jobs: every asynchronous write creates one, and its effect is applied only when the job
 * reaches `finished`, so a client that does not wait for it sees the old state.
 *
 * Progression is either by polls (the n-th `GET /jobs/{id}` sees the job done, earlier ones
 * see `running`; with `settleAfterMs`, it also ends by itself that long after creation, read or
 * not, as the service's jobs do) or by time (done `finishAfterMs` after creation, polled or not).
 * Both deadlines are timers of the emulator's clock, and are checked again on every read. With `readableAfterMs`, a job
 * is unknown to its reads (404) until that long after creation, as a job store that lags its writes.
 */
import { randomUUID } from "node:crypto";
import type { EmulatorClock } from "./clock";
import type { JobErrorDetails, JobStatus, JobTiming } from "./types";

/** The `account` object a job names: the integration it acts on. */
export interface JobAccount {
  entity: "account";
  id: string;
  name: string;
  provider: string;
}

/** Why a job's effect could not be applied. */
export interface JobFailure {
  errorDetails: JobErrorDetails;
  /** Put in the job's `response`, to say more than `errorType` can. */
  response?: Record<string, unknown>;
}

/** What a route asks the engine to run. */
interface JobSpec {
  workflowType: string;
  account: JobAccount | null;
  payload: Record<string, unknown>;
  /** Applies the write, or says why it cannot (then nothing is applied). Called once, at completion. */
  run(): JobFailure | undefined;
}

/** A job as the engine holds it; timestamps are epoch ms. */
export interface JobRow {
  id: string;
  workflowType: string;
  trigger: string;
  account: JobAccount | null;
  createdBy: { id: string; name: string };
  payload: Record<string, unknown>;
  response: Record<string, unknown>;
  errorDetails: JobErrorDetails | Record<string, never>;
  status: JobStatus;
  createdAt: number;
  updatedAt: number;
  polls: number;
}

/** The default: done on the second poll, so a client must poll at least twice. */
export const DEFAULT_FINISH_AFTER_POLLS = 2;

/** The errorType of a job failed through `failNext` without details. */
export const INJECTED_ERROR_TYPE = "automation_failed";

type Fate = { kind: "normal" } | { kind: "hang" } | { kind: "fail"; errorDetails: JobErrorDetails };

interface JobState {
  row: JobRow;
  fate: Fate;
  timing: { polls: number; settleAfterMs?: number } | { ms: number };
  /** When its reads find it (epoch ms, the emulator's clock): before then `GET /jobs/{id}` answers 404. */
  readableAt: number;
  run: () => JobFailure | undefined;
  /** Cancels the pending timer, when one runs. */
  cancel?: () => void;
}

function isDone(status: JobStatus): boolean {
  return status === "finished" || status === "error";
}

/** Creates, advances and settles jobs. */
export class JobEngine {
  readonly #jobs = new Map<string, JobState>();
  #timing: JobTiming;
  #failCount = 0;
  #failDetails: JobErrorDetails = { errorType: INJECTED_ERROR_TYPE, userRequired: false };
  #hangCount = 0;

  readonly #createdBy: { id: string; name: string };
  readonly #clock: EmulatorClock;

  constructor(timing: JobTiming | undefined, createdBy: { id: string; name: string }, clock: EmulatorClock) {
    this.#createdBy = createdBy;
    this.#clock = clock;
    this.#timing = { ...timing };
  }

  /** Changes how jobs created from now on progress. */
  setTiming(timing: JobTiming): void {
    this.#timing = { ...timing };
  }

  /** The next `count` jobs end in `error` with these details. */
  failNext(count: number, errorDetails?: JobErrorDetails): void {
    this.#failCount = Math.max(0, count);
    this.#failDetails = errorDetails ?? { errorType: INJECTED_ERROR_TYPE, userRequired: false };
  }

  /** The next `count` jobs never leave `running`. */
  hangNext(count: number): void {
    this.#hangCount = Math.max(0, count);
  }

  /** A hanging job does its work now and ends; any other job is left as it is. */
  release(id: string): void {
    const state = this.#jobs.get(id);
    if (state === undefined || state.fate.kind !== "hang") return;
    state.fate = { kind: "normal" };
    this.#settle(state);
  }

  /** Starts a job; with an immediate timing it may already be done when returned. */
  create(spec: JobSpec): JobRow {
    const now = this.#clock.now();
    const row: JobRow = {
      id: randomUUID(),
      workflowType: spec.workflowType,
      trigger: "manual",
      account: spec.account,
      createdBy: { ...this.#createdBy },
      payload: spec.payload,
      response: {},
      errorDetails: {},
      status: "created",
      createdAt: now,
      updatedAt: now,
      polls: 0,
    };
    const readableAt = now + Math.max(0, this.#timing.readableAfterMs ?? 0);
    const state: JobState = { row, fate: this.#nextFate(), timing: this.#currentTiming(), readableAt, run: spec.run };
    this.#jobs.set(row.id, state);
    const deadline = deadlineOf(state.timing);
    if (("polls" in state.timing && state.timing.polls <= 0) || (deadline !== undefined && deadline <= 0)) this.#settle(state);
    else if (deadline !== undefined && state.fate.kind !== "hang") {
      state.cancel = this.#clock.setTimer(() => this.#settle(state), deadline);
    }
    return row;
  }

  /** What `GET /jobs/{id}` sees: counts the read and advances the job; undefined (404) for a job not readable yet, no read counted. */
  poll(id: string): JobRow | undefined {
    const state = this.#jobs.get(id);
    if (state === undefined || this.#clock.now() < state.readableAt) return undefined;
    state.row.polls += 1;
    if (isDone(state.row.status)) return state.row;
    const deadline = deadlineOf(state.timing);
    // The deadline is computed on read as well as by timer, so a read right at it never sees a stale state.
    const due = deadline !== undefined && this.#clock.now() - state.row.createdAt >= deadline;
    const polledEnough = "polls" in state.timing && state.row.polls >= state.timing.polls;
    if (state.fate.kind !== "hang" && (due || polledEnough)) this.#settle(state);
    else this.#setStatus(state, "running");
    return state.row;
  }

  /** A job without counting a read. */
  get(id: string): JobRow | undefined {
    return this.#jobs.get(id)?.row;
  }

  /** Every job in creation order. */
  list(): JobRow[] {
    return [...this.#jobs.values()].map((s) => s.row);
  }

  /** Clears every timer (jobs not yet done stay as they are). */
  dispose(): void {
    for (const state of this.#jobs.values()) {
      state.cancel?.();
      state.cancel = undefined;
    }
  }

  #currentTiming(): JobState["timing"] {
    const { finishAfterMs, finishAfterPolls, settleAfterMs } = this.#timing;
    if (finishAfterMs !== undefined) return { ms: finishAfterMs };
    const polls = finishAfterPolls ?? DEFAULT_FINISH_AFTER_POLLS;
    return settleAfterMs === undefined ? { polls } : { polls, settleAfterMs };
  }

  // A hang is taken before a failure: a job that never ends cannot also end in error.
  #nextFate(): Fate {
    if (this.#hangCount > 0) {
      this.#hangCount -= 1;
      return { kind: "hang" };
    }
    if (this.#failCount > 0) {
      this.#failCount -= 1;
      return { kind: "fail", errorDetails: { ...this.#failDetails } };
    }
    return { kind: "normal" };
  }

  #setStatus(state: JobState, status: JobStatus): void {
    if (state.row.status === status) return;
    state.row.status = status;
    state.row.updatedAt = Math.max(this.#clock.now(), state.row.updatedAt);
  }

  #settle(state: JobState): void {
    // A job settled by a read no longer needs its timer (nor keeps a virtual clock's queue).
    state.cancel?.();
    state.cancel = undefined;
    if (isDone(state.row.status)) return;
    if (state.fate.kind === "hang") {
      this.#setStatus(state, "running");
      return;
    }
    const failure: JobFailure | undefined =
      state.fate.kind === "fail"
        ? { errorDetails: state.fate.errorDetails, response: { message: "The automation failed (injected by the emulator)." } }
        : runSafely(state.run);
    if (failure === undefined) {
      this.#setStatus(state, "finished");
      return;
    }
    state.row.errorDetails = { ...failure.errorDetails };
    state.row.response = failure.response ?? {};
    this.#setStatus(state, "error");
  }
}

/** When a job ends by time alone, in ms after creation: `finishAfterMs`, else the poll-mode ceiling; undefined: never. */
function deadlineOf(timing: JobState["timing"]): number | undefined {
  return "ms" in timing ? timing.ms : timing.settleAfterMs;
}

/** A job's work; one that throws (an emulator fault) ends the job in `error`, never stuck `running` or crashing a timer. */
function runSafely(run: () => JobFailure | undefined): JobFailure | undefined {
  try {
    return run();
  } catch (error) {
    const message = `The emulator failed to run the job: ${error instanceof Error ? error.message : String(error)}`;
    return { errorDetails: { errorType: "emulator_error", userRequired: false }, response: { message } };
  }
}
