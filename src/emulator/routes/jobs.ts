/**
 * `GET /jobs/{id}`: each read counts as a poll and may advance the job (see `jobs.ts`).
 */
import { ApiError } from "../errors";
import { jobEnvelope, jobRecord } from "../records";
import { variedJobState } from "../quirks";
import { scopesOf } from "../scopes";
import { param, type Route } from "./context";

const readJob: Route = {
  method: "GET",
  pattern: "/jobs/:id",
  scopes: (world) => scopesOf("GET /jobs/:id", world.scopeTable),
  handle(ctx) {
    const id = param(ctx, "id");
    const job = ctx.world.jobs.poll(id);
    if (job === undefined) throw ApiError.notFound(`No job with id ${id}.`);
    const done = job.status === "finished" || job.status === "error";
    // The document lists the states of a job not done, not their order: `jobProgress: "varied"` shows each in turn.
    const shown = done || ctx.world.quirks.jobProgress !== "varied" ? job : { ...job, status: variedJobState(job.polls) };
    return { status: 200, body: jobEnvelope(jobRecord(shown)) };
  },
};

/** The job routes. */
export const jobRoutes: readonly Route[] = [readJob];
