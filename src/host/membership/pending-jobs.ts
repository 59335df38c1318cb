/**
 * The jobs an earlier deployment left running (a write not seen to finish): given their time once
 * more before anything is written again, so that a slow invitation is not sent twice.
 */
import { JobFailedError, JobTimeoutError, NotFoundError, type WorkspaceAccessClient } from "../../client";

/**
 * Waits (up to `jobTimeoutSeconds` once more) for jobs an earlier deployment left running (an
 * invitation not seen to finish), so that a slow invitation is not sent twice. Returns the ids of
 * the jobs still running after that wait; a job that failed or is gone has ended (its write did
 * not happen, or the member list tells).
 */
export async function settle(client: WorkspaceAccessClient, jobIds: readonly string[]): Promise<string[]> {
  const running: string[] = [];
  await Promise.all(
    jobIds.map(async (id) => {
      try {
        await client.jobs.wait(id);
      } catch (error) {
        if (JobTimeoutError.isInstance(error)) running.push(id);
        else if (!(JobFailedError.isInstance(error) || NotFoundError.isInstance(error))) throw error;
      }
    }),
  );
  return running.sort();
}
