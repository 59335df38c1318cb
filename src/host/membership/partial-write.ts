/**
 * The one record of a write that may still land (accepted, or its answer lost, and not seen to finish). The host keeps a
 * {@link PartialWriteError} with a record as partially created (gRPC `ErrorResourceInitFailed`, from its `id`, `properties`
 * and `reasons`): the next `pulumi up` waits for its job ({@link waitForPending}).
 */
import { InvalidResponseError, type Job, JobFailedError, JobTimeoutError, NotFoundError, type WorkspaceAccessClient } from "../../client";

const MARKER = Symbol.for("pulumi-workspace-access.PartialWriteError");

/** A write that may still land, in both membership resources' state (`pendingInvitations`): whose, and its job (`null`: none known). */
export interface PendingInvitation {
  userId: string;
  jobId: string | null;
}

/** What the host keeps of a partially created resource. */
interface PartialRecord {
  id: string;
  properties: Record<string, unknown>;
}

/** A write that may still land: its message is the cause's (the user still reads why), with the job to wait for. */
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

/** A failed wait for an accepted write's job: the job's own failure (nothing written) as it is, any other (a timeout) a {@link PartialWriteError}. */
export function afterJobWait(error: unknown, jobId: string | null): unknown {
  if (jobId === null || JobFailedError.isInstance(error) || PartialWriteError.isInstance(error)) return error;
  return new PartialWriteError(error, jobId);
}

/**
 * What became of the job of a write an earlier deployment left running, given its time once more: `finished` (its record given
 * to `onFinished`); `running` still;
 * `ended` otherwise (failed, or unknown to the service: what it did, if anything, is not known to be the resource's); `unread`,
 * its record cannot be read (a job with no status), with why: whether it did its write is not known, so its caller keeps it as
 * if still running, and one odd job record fails only what it wrote.
 */
export async function settleJob(
  client: WorkspaceAccessClient,
  jobId: string,
  onFinished?: (job: Job) => void,
): Promise<"finished" | "running" | "ended" | { unread: InvalidResponseError }> {
  try {
    // Waited for apart from the call: `onFinished?.(...)` would not evaluate its argument, the wait, without a callback.
    const job = await client.jobs.wait(jobId);
    onFinished?.(job);
    return "finished";
  } catch (error) {
    if (JobTimeoutError.isInstance(error)) return "running";
    if (JobFailedError.isInstance(error) || NotFoundError.isInstance(error)) return "ended";
    if (InvalidResponseError.isInstance(error)) return { unread: error };
    throw error;
  }
}

/**
 * Gives the jobs an earlier deployment left their time once more (a slow invitation is not sent twice); answers those still
 * running, and those finished (whose member, not found, may yet be listed: a read lagging the service's jobs).
 */
export async function waitForPending(
  client: WorkspaceAccessClient,
  pending: readonly PendingInvitation[] | undefined,
): Promise<{ running: string[]; finished: string[] }> {
  const { running, finished, unread } = await waitForEachPending(client, pending);
  const [first] = unread.values();
  if (first) throw first;
  return { running, finished };
}

/**
 * As {@link waitForPending}, for a resource of many members: a job whose record cannot be read (a job with no status) is
 * answered in `unread`, with why, instead of failing the operation: whether it made its member is not known, so that member
 * alone is kept as if still running (neither invited again nor forgotten), and one odd job record breaks no other member's write.
 */
export async function waitForEachPending(
  client: WorkspaceAccessClient,
  pending: readonly PendingInvitation[] | undefined,
): Promise<{ running: string[]; finished: string[]; unread: Map<string, InvalidResponseError> }> {
  const running: string[] = [];
  const finished: string[] = [];
  const unread = new Map<string, InvalidResponseError>();
  const jobIds = (pending ?? []).flatMap((p) => (p.jobId === null ? [] : [p.jobId]));
  await Promise.all(
    jobIds.map(async (id) => {
      const outcome = await settleJob(client, id);
      if (typeof outcome === "object") unread.set(id, outcome.unread);
      else if (outcome === "running") running.push(id);
      else if (outcome === "finished") finished.push(id);
    }),
  );
  return { running: running.sort(), finished: finished.sort(), unread };
}
