/**
 * The contract's answers: only a record's `id` is certain, others nullish, unknown fields kept, open enums any string; a wrong
 * type fails it, but for what the package never decides by: `links.self` and `links.previous`, the page meta, which only
 * sizes a list's read-ahead, a user's `mfaStatus`, a member's `meta`, and a job's fields but its status, times, error details
 * and payload: one not the contract's (a total as text, a `createdBy` as text) is taken as absent.
 */
import type { z as Z } from "zod";

function build(z: typeof Z) {
  /** Read by nothing the package decides: a wrong type is as absent. */
  const unread = <T extends Z.ZodType>(schema: T) => schema.optional().catch(undefined);
  const links = z
    .looseObject({ self: unread(z.string().nullish()), next: z.string().nullish(), previous: unread(z.string().nullish()) })
    .nullish();
  const page = z.looseObject({ maxSize: z.number().nullish(), total: z.number().nullish() }).nullish();
  const pageMeta = unread(z.looseObject({ page }).nullish());

  const text = z.string().nullish();
  const record = <A extends Z.core.$ZodLooseShape, E extends Z.core.$ZodLooseShape = Record<never, never>>(attributes: A, extra?: E) =>
    z.looseObject({ id: z.string().min(1), type: text, attributes: z.looseObject(attributes).nullish(), ...(extra as E) });

  const userRecord = record({
    email: text,
    firstName: text,
    lastName: text,
    role: text,
    isGuest: z.boolean().nullish(),
    status: text,
    mfaStatus: unread(z.looseObject({ mfaEnabled: z.boolean().nullish(), mfaEnrollmentDate: text }).nullish()),
    createdAt: text,
    updatedAt: text,
  });

  const entitlementRecord = record({ group: text, key: text, label: text, value: text });

  /** The contract: entitlements of an integration user are records, or plain id strings. */
  const entitlementRef = z.union([z.string().min(1), entitlementRecord]);

  const integrationUserRecord = record(
    {
      email: text,
      firstName: text,
      lastName: text,
      isGuest: z.boolean().nullish(),
      status: text,
      role: text,
      entitlements: z.array(entitlementRef).nullish(),
    },
    { meta: unread(z.looseObject({ dynamicFields: unread(z.record(z.string(), z.unknown()).nullish()) }).nullish()) },
  );

  const integrationRecord = record({ application: text, label: text, workspace: text, createdAt: text, updatedAt: text, createdBy: text });

  // A job's fields nothing decides by (shown by getJob and in messages only): one of another type than the contract's (a
  // `createdBy` as text) is as absent, so that it never makes every wait for a job that did its write fail.
  const jobRecord = record({
    status: text,
    account: unread(z.looseObject({}).nullish()),
    canRetry: unread(z.boolean().nullish()),
    createdAt: text,
    createdBy: unread(z.looseObject({}).nullish()),
    errorDetails: z.looseObject({ errorType: text, screenshotUrl: text, userRequired: z.boolean().nullish() }).nullish(),
    hasMoreDetails: unread(z.boolean().nullish()),
    payload: z.unknown().optional(),
    response: z.unknown().optional(),
    trigger: unread(text),
    updatedAt: unread(text),
    workflowType: unread(text),
    workspacePolicyEnforcementId: unread(text),
  });

  /** A write's answer that is a job: only `type` tells it from the record a write may answer with instead. */
  const jobAnswer = jobRecord.extend({ type: z.literal("job") });

  const errorBody = z.looseObject({
    errors: z
      .array(
        z.looseObject({
          code: z.union([z.string(), z.number()]).nullish(),
          title: z.string().nullish(),
          detail: z.string().nullish(),
          status: z.union([z.string(), z.number()]).nullish(),
          meta: z.unknown().optional(),
        }),
      )
      .nullish(),
  });

  /** `{ data, links, meta }`: what every answer of the contract is wrapped in. */
  const envelope = <D extends Z.ZodType>(data: D) => z.looseObject({ data, links, meta: pageMeta });

  // Each envelope built once: zod compiles a schema on its first parse, not per request.
  return {
    userRecord,
    integrationRecord,
    integrationUserRecord,
    entitlementRecord,
    jobRecord,
    jobAnswer,
    errorBody,
    user: envelope(userRecord),
    /** A write's answer: the record it wrote, or a job doing the write (`data.type == "job"`). */
    userOrJob: envelope(z.union([jobAnswer, userRecord])),
    integration: envelope(integrationRecord),
    member: envelope(integrationUserRecord),
    job: envelope(jobRecord),
    /** Any answer, e.g. of a write (`handleOf` reads it); one without `data` (`{ "meta": {} }`) holds no job, as one without a body. */
    anyAnswer: envelope(z.unknown().optional()),
    /** A page whose records are parsed one by one (see `paginate`): only the envelope is checked here. */
    page: envelope(z.array(z.unknown())),
  };
}

export type Schemas = ReturnType<typeof build>;
let built: Schemas | undefined;

/** The schemas, built on first use: loading zod and building them takes about 50 ms, which a program that only declares resources should not pay. */
export function schemas(): Schemas {
  built ??= build((require("zod") as typeof import("zod")).z);
  return built;
}

export type UserRecord = Z.infer<Schemas["userRecord"]>;
export type EntitlementRecord = Z.infer<Schemas["entitlementRecord"]>;
export type IntegrationUserRecord = Z.infer<Schemas["integrationUserRecord"]>;
export type IntegrationRecord = Z.infer<Schemas["integrationRecord"]>;
export type JobRecord = Z.infer<Schemas["jobRecord"]>;
