/**
 * The one error of a write that may still land: the service accepted it (or may have: its answer
 * was lost) and it was not seen to finish. It carries the job to wait for (`pendingJobId`, `null`
 * when no job is known) and the error that ended the wait as its `cause`; its message is the
 * cause's, so the user still reads why.
 *
 * When a provider's create or update throws it with a `record` (the resource id and the state to
 * keep), the dynamic-provider host records the resource as partially created (the gRPC
 * `ErrorResourceInitFailed` detail, read from the error's `id`, `properties` and `reasons`): the
 * next `pulumi up` resumes from that state instead of writing again.
 */
import { JobFailedError } from "../../client";

const MARKER = Symbol.for("pulumi-workspace-access.PartialWriteError");

/**
 * The one record of a write that may still land, in both membership resources' state
 * (`pendingInvitations`): whose, and the job to wait for before writing again (`null`: none known,
 * its answer was lost). The resource is recorded, re-checked on refresh and on the next `up`, never re-sent blindly.
 */
export interface PendingInvitation {
  userId: string;
  jobId: string | null;
}

/** The jobs of `pending` to wait for. */
export const jobsOf = (pending: readonly PendingInvitation[] | undefined): string[] =>
  (pending ?? []).flatMap((p) => (p.jobId === null ? [] : [p.jobId]));

/** What the host keeps of a partially created resource. */
export interface PartialRecord {
  id: string;
  properties: Record<string, unknown>;
}

export class PartialWriteError extends Error {
  override readonly name = "PartialWriteError";
  /** The job to wait for before writing again; `null` when the write's answer was lost (no job known). */
  readonly pendingJobId: string | null;
  /** Read by the dynamic-provider host: the resource id of a partial create (absent: nothing recorded). */
  readonly id?: string;
  /** Read by the host: the state to record for the partial create. */
  readonly properties?: Record<string, unknown>;
  /** Read by the host: why the resource is not complete. */
  readonly reasons?: string[];

  constructor(cause: unknown, pendingJobId: string | null, record?: PartialRecord) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.pendingJobId = pendingJobId;
    if (record) {
      this.id = record.id;
      this.properties = record.properties;
      this.reasons = [this.message];
    }
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True for a {@link PartialWriteError} of any copy of the package. */
  static isInstance(value: unknown): value is PartialWriteError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** The same partial write, now recorded as the resource `record` (for the host). */
  recordedAs(record: PartialRecord): PartialWriteError {
    return new PartialWriteError(this.cause, this.pendingJobId, record);
  }
}

/**
 * How a wait for an accepted write's job ended, as the caller should see it: the job's own failure
 * (the write did not happen) as it is, any other failure (a timeout, polling that failed) as a
 * {@link PartialWriteError} with that job. A write answered without a job has none to wait for: as it is.
 */
export function afterJobWait(error: unknown, jobId: string | null): unknown {
  if (jobId === null || JobFailedError.isInstance(error) || PartialWriteError.isInstance(error)) return error;
  return new PartialWriteError(error, jobId);
}
