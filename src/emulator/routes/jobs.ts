/**
 * `GET /jobs/{id}`: each read counts as a poll and may advance the job (see `jobs.ts`).
 */
import { ApiError } from "../errors";
import { jobEnvelope, jobRecord } from "../records";
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
    return { status: 200, body: jobEnvelope(jobRecord(job)) };
  },
};

/** The job routes. */
export const jobRoutes: readonly Route[] = [readJob];
