/**
 * Response schemas of the contract (api-contract.md). Lenient where the service may grow: unknown
 * fields pass through, open enums (role, status, trigger, workflowType) take any string, and ids
 * are plain strings (the public document's own examples hold ids that are not UUIDs). Strict on
 * what this package relies on: a user without an email is an invalid response, not a crash later.
 */
import { z } from "zod";

/** Workspace roles the public document lists; others are accepted with a warning by the resources. */
export const KNOWN_USER_ROLES = [
  "workspace_owner",
  "workspace_super_admin",
  "workspace_guest_admin",
  "workspace_login_only",
  "workspace_guest_user",
] as const;

const links = z
  .looseObject({
    self: z.string().nullish(),
    next: z.string().nullish(),
    previous: z.string().nullish(),
  })
  .nullish();

const pageMeta = z
  .looseObject({
    page: z.looseObject({ maxSize: z.number().nullish(), total: z.number().nullish() }).nullish(),
  })
  .nullish();

/**
 * Builds an envelope schema once per record schema: zod compiles a schema on its first parse, so
 * a schema built per request would be compiled per request.
 */
function memo<S extends z.ZodType>(build: (record: z.ZodType) => S) {
  const built = new WeakMap<z.ZodType, S>();
  return (record: z.ZodType): S => {
    let schema = built.get(record);
    if (!schema) {
      schema = build(record);
      built.set(record, schema);
    }
    return schema;
  };
}

const singleOf = memo((record) => z.looseObject({ data: record, links, meta: pageMeta }));
const pageOf = memo((record) => z.looseObject({ data: z.array(record), links, meta: pageMeta }));

/** `{ data, links, meta }` with one record. */
export function single<T extends z.ZodType>(record: T) {
  return singleOf(record) as z.ZodObject<{ data: T; links: typeof links; meta: typeof pageMeta }, z.core.$loose>;
}

/** `{ data: [...], links, meta }`: one page of a list. */
export function page<T extends z.ZodType>(record: T) {
  return pageOf(record) as z.ZodObject<{ data: z.ZodArray<T>; links: typeof links; meta: typeof pageMeta }, z.core.$loose>;
}

export const userRecord = z.looseObject({
  id: z.string().min(1),
  type: z.string(),
  attributes: z.looseObject({
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    role: z.string(),
    isGuest: z.boolean().nullish(),
    status: z.string().nullish(),
    mfaStatus: z
      .looseObject({ mfaEnabled: z.boolean().nullish(), mfaEnrollmentDate: z.string().nullish() })
      .nullish(),
    createdAt: z.string().nullish(),
    updatedAt: z.string().nullish(),
  }),
});

export const entitlementRecord = z.looseObject({
  id: z.string().min(1),
  type: z.string().nullish(),
  attributes: z
    .looseObject({
      group: z.string().nullish(),
      key: z.string().nullish(),
      label: z.string().nullish(),
      value: z.string().nullish(),
    })
    .nullish(),
});

/** The contract: entitlements of an integration user are records, or plain id strings. */
const entitlementRef = z.union([z.string().min(1), entitlementRecord]);

export const integrationUserRecord = z.looseObject({
  id: z.string().min(1),
  type: z.string().nullish(),
  attributes: z.looseObject({
    email: z.string().nullish(),
    firstName: z.string().nullish(),
    lastName: z.string().nullish(),
    isGuest: z.boolean().nullish(),
    status: z.string().nullish(),
    role: z.string().nullish(),
    entitlements: z.array(entitlementRef).nullish(),
  }),
  meta: z.looseObject({ dynamicFields: z.record(z.string(), z.unknown()).nullish() }).nullish(),
});

export const integrationRecord = z.looseObject({
  id: z.string().min(1),
  type: z.string().nullish(),
  attributes: z.looseObject({
    application: z.string().nullish(),
    label: z.string().nullish(),
    workspace: z.string().nullish(),
    createdAt: z.string().nullish(),
    updatedAt: z.string().nullish(),
    createdBy: z.string().nullish(),
  }),
});

export const jobRecord = z.looseObject({
  id: z.string().min(1),
  type: z.literal("job"),
  attributes: z.looseObject({
    status: z.string(),
    account: z.looseObject({}).nullish(),
    canRetry: z.boolean().nullish(),
    createdAt: z.string().nullish(),
    createdBy: z.looseObject({}).nullish(),
    errorDetails: z
      .looseObject({
        errorType: z.string().nullish(),
        screenshotUrl: z.string().nullish(),
        userRequired: z.boolean().nullish(),
      })
      .nullish(),
    hasMoreDetails: z.boolean().nullish(),
    payload: z.unknown().optional(),
    response: z.unknown().optional(),
    trigger: z.string().nullish(),
    updatedAt: z.string().nullish(),
    workflowType: z.string().nullish(),
    workspacePolicyEnforcementId: z.string().nullish(),
  }),
});

const orJob = memo((record) => z.union([jobRecord, record]));

/** A write's answer: the record it wrote, or a job doing the write (`data.type == "job"`). */
export function recordOrJob<T extends z.ZodType>(record: T) {
  return single(orJob(record) as z.ZodUnion<[typeof jobRecord, T]>);
}

export const errorBody = z.looseObject({
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

export type UserRecord = z.infer<typeof userRecord>;
export type EntitlementRecord = z.infer<typeof entitlementRecord>;
export type IntegrationUserRecord = z.infer<typeof integrationUserRecord>;
export type IntegrationRecord = z.infer<typeof integrationRecord>;
export type JobRecord = z.infer<typeof jobRecord>;
