/** The Job data source: runs in the program process, with the settings read there as the host reads them. */
import * as pulumi from "@pulumi/pulumi";
import type { Clock, Job as ClientJob } from "../client";
import { systemClock } from "../client/clock";
import { JobFailedError, JobTimeoutError } from "../client/errors";
import { checkArguments, type SpecOf } from "./lookups/arguments";
import { outputOf, programFailure } from "./lookups/run";
import { programClient } from "./program-settings";

/** Arguments of {@link getJob}. */
export interface GetJobArgs {
  /** The job's id. */
  id: string;
  /** Poll until the job is `finished` or `error`, or `timeoutSeconds` pass. Default false. */
  waitForCompletion?: boolean;
  /** The longest wait, in seconds; default `workspace-access:jobTimeoutSeconds` (900). Only with `waitForCompletion: true`. */
  timeoutSeconds?: number;
}

/** A job, and how waiting for it ended. */
export interface Job extends ClientJob {
  /** `finished` or `error` when the job ended, `timeout` when waiting gave up, `not_waited` when read once: without `waitForCompletion`, or in a preview. */
  waitOutcome: "finished" | "error" | "timeout" | "not_waited";
}

const SPEC: SpecOf<GetJobArgs> = {
  lookup: "getJob",
  args: { id: "string", waitForCompletion: "boolean", timeoutSeconds: "seconds" },
  required: ["id"],
  // A timeout without a wait would be ignored: the job is read once, `not_waited`.
  onlyWith: { timeoutSeconds: "waitForCompletion" },
};

/**
 * Reads a job; with `waitForCompletion`, waits until it ends or the timeout, and says which (a preview reads it once:
 * `not_waited`). A key refused (401/403) says where the key comes from, and no failure holds a run of the key, as the lookups'
 * errors (`programFailure`). `opts`, Pulumi's `InvokeOptions`, is taken for the usual shape, as by the lookups, and changes
 * nothing (the job is read in the program, not through a provider; {@link getJobOutput} waits for its `dependsOn`).
 */
export function getJob(args: GetJobArgs, _opts?: pulumi.InvokeOptions): Promise<Job> {
  return readJob(args, systemClock).catch((error: unknown) => {
    throw programFailure(error);
  });
}

/** {@link getJob} on a given clock (tests run it on the emulator's virtual clock). */
export async function readJob(given: GetJobArgs, clock: Clock): Promise<Job> {
  // Asked wrongly (a timeout of NaN would never end the wait), it fails before settings are read or a request is sent.
  const args = checkArguments<GetJobArgs>(SPEC, given);
  const client = await programClient(clock);
  try {
    if (!args.waitForCompletion || pulumi.runtime.isDryRun()) {
      return { ...(await client.jobs.get(args.id)), waitOutcome: "not_waited" };
    }
    // The last state polled answers a failed or timed-out wait: no second request for it.
    const polled: ClientJob[] = [];
    const timeout = args.timeoutSeconds === undefined ? {} : { timeoutMs: args.timeoutSeconds * 1000 };
    try {
      return { ...(await client.jobs.wait(args.id, { ...timeout, onPoll: (job) => polled.push(job) })), waitOutcome: "finished" };
    } catch (error) {
      if (JobFailedError.isInstance(error) || JobTimeoutError.isInstance(error)) {
        const job = polled.at(-1) ?? (await client.jobs.get(args.id));
        return { ...job, waitOutcome: JobFailedError.isInstance(error) ? "error" : "timeout" };
      }
      throw error;
    }
  } finally {
    await client.close();
  }
}

/** {@link getJob} for arguments that are Pulumi inputs. */
export const getJobOutput = outputOf(getJob);
