/**
 * The writes of an integration's members (public document): invite, set or add and remove
 * entitlements, remove a member. Every write answers with a job and changes nothing until that job
 * finishes. A write naming an entitlement outside the catalogue is accepted, and its job ends in
 * `error` (`entitlement_not_found`) without applying anything (the `unknownEntitlement` quirk refuses it at once
 * instead, 400 or 404). With the `integrationWriteAnswer`
 * quirk, a write is done at once instead: no job, the change applied before the answer, and a
 * change that cannot be applied answered as an error.
 */
import { ApiError } from "../errors";
import { INVITE_FAILED_ERROR_TYPE } from "../faults";
import type { JobAccount, JobFailure } from "../jobs";
import { integrationJobRecord, jobEnvelope } from "../records";
import { scopesOf } from "../scopes";
import type { IntegrationRow } from "../store";
import type { MemberRole } from "../types";
import { field, parseBody, requireJsonBody } from "../validation";
import { param, type Reply, type RequestContext, type Route } from "./context";
import { integrationOf, memberOf } from "./integration-rows";

/** The `workflowType` of each integration write. */
export const INTEGRATION_WORKFLOWS = { invite: "provide_access", update: "update_access", revoke: "revoke_access" } as const;

/** The `errorType` of an invitation job naming an existing member, with `inviteExisting: "fail"`. */
export const ALREADY_MEMBER = "user_already_member";

/** The `errorType` of a job naming an entitlement the integration does not offer. */
export const ENTITLEMENT_NOT_FOUND = "entitlement_not_found";

const INVITE_ROLES = { account_owner: "owner", account_collaborator: "collaborator" } as const satisfies Record<string, MemberRole>;

function account(integration: IntegrationRow): JobAccount {
  return { entity: "account", id: integration.id, name: integration.label, provider: integration.application };
}

function unknownEntitlements(integration: IntegrationRow, ids: readonly string[]): JobFailure | undefined {
  const missing = ids.filter((id) => !integration.entitlements.some((e) => e.id === id));
  if (missing.length === 0) return undefined;
  return {
    errorDetails: { errorType: ENTITLEMENT_NOT_FOUND, userRequired: false },
    response: { message: `The integration ${integration.label} has no entitlement ${missing.join(", ")}.`, entitlements: missing },
  };
}

function notMember(integration: IntegrationRow, userId: string): JobFailure {
  return {
    errorDetails: { errorType: "user_not_member", userRequired: false },
    response: { message: `The user ${userId} is no longer a member of ${integration.label}.` },
  };
}

/**
 * The member a `PATCH` or `DELETE` names: a user who is not a member answers 404 at once (the default), or, with
 * `nonMemberWrite: "job-error"`, the write is accepted and its job ends in `error` (`user_not_member`), nothing applied.
 */
function writtenMember(ctx: RequestContext, integration: IntegrationRow): string {
  const userId = param(ctx, "userId");
  if ((ctx.world.quirks.nonMemberWrite ?? "not-found") === "job-error") return integration.members.get(userId)?.userId ?? userId;
  return memberOf(integration, userId).userId;
}

function integrationGone(integration: IntegrationRow): JobFailure {
  return {
    errorDetails: { errorType: "integration_not_found", userRequired: false },
    response: { message: `The integration ${integration.label} no longer exists.` },
  };
}

/**
 * With `unknownEntitlement` other than `"job-error"`: a write naming an entitlement outside the catalogue is refused
 * before anything starts, 400 naming the field `loc` or 404.
 */
function refuseUnknownEntitlements(ctx: RequestContext, integration: IntegrationRow, ids: readonly string[], loc: string[]): void {
  const mode = ctx.world.quirks.unknownEntitlement ?? "job-error";
  const failure = mode === "job-error" ? undefined : unknownEntitlements(integration, ids);
  if (failure === undefined) return;
  const message = String(failure.response?.["message"]);
  if (mode === "not-found") throw ApiError.of(404, message, { ...failure.response, ...failure.errorDetails });
  throw ApiError.validation([{ loc, msg: message, type: "value_error.entitlement" }]);
}

/**
 * A write done at once that could not be applied: what its job's `error` would have said, as an
 * error answer (404 for what is not found, 409 for an existing member, 402 "unknown failure"
 * else), the `errorType` and the job's `response` in `meta`.
 */
function refusal(failure: JobFailure): ApiError {
  const { errorType } = failure.errorDetails;
  const status = errorType === ALREADY_MEMBER ? 409 : errorType.endsWith("_not_found") ? 404 : 402;
  const message = failure.response?.["message"];
  return ApiError.of(status, typeof message === "string" ? message : errorType, { ...failure.response, ...failure.errorDetails });
}

/** A write the `integrationWriteAnswer` quirk makes synchronous: applied now, answered without a job. */
function doneAtOnce(answer: "no-content" | "empty-ok" | "no-data", run: () => JobFailure | undefined): Reply {
  const failure = run();
  if (failure !== undefined) throw refusal(failure);
  if (answer === "no-content") return { status: 204 };
  // The route answers no body; the server sends none for a reply without one, whatever its status.
  if (answer === "empty-ok") return { status: 200 };
  return { status: 200, body: { meta: {} } };
}

function startJob(
  ctx: RequestContext,
  integration: IntegrationRow,
  workflowType: string,
  payload: Record<string, unknown>,
  run: () => JobFailure | undefined,
): Reply {
  const { store } = ctx.world;
  // A record a program wrote to is no longer another admin's: a page shift never takes it away.
  store.otherAdmin.integrations.delete(integration.id);
  const answer = ctx.world.quirks.integrationWriteAnswer ?? "job";
  if (answer !== "job") return doneAtOnce(answer, run);
  const job = ctx.world.jobs.create({
    workflowType,
    account: account(integration),
    payload: { integrationId: integration.id, ...payload },
    // Deleted meanwhile (by a test): the job ends in error, as a service's would, rather than write to no integration.
    run: () => (store.integration(integration.id) === undefined ? integrationGone(integration) : run()),
  });
  return { status: 200, body: jobEnvelope(integrationJobRecord(job)) };
}

export const invite: Route = {
  method: "POST",
  pattern: "/integrations/:id/users",
  scopes: (world) => scopesOf("POST /integrations/:id/users", world.scopeTable),
  handle(ctx) {
    const body = parseBody(
      field.object({
        data: field.object({
          type: field.oneOf(["invite_tenant_users"]),
          attributes: field.object({
            role: field.oneOf(["account_owner", "account_collaborator"] as const),
            entitlements: field.idObjects(),
            userIds: field.uuids(),
          }),
        }),
      }),
      requireJsonBody(ctx.body, ctx.invalidJson),
    );
    const { role: inviteRole, entitlements, userIds } = body.data.attributes;
    const integration = integrationOf(ctx);
    const { store } = ctx.world;
    const existing = ctx.world.quirks.inviteExisting ?? "conflict";
    for (const userId of userIds) {
      if (store.user(userId) === undefined) throw ApiError.notFound(`No user with id ${userId}.`);
      // An existing member is changed through PATCH; inviting them again is a conflict (unless a
      // quirk makes the job merge or fail the invitation instead: the contract allows all three).
      if (existing === "conflict" && integration.members.has(userId))
        throw ApiError.conflict(`The user ${userId} is already a member of the integration ${integration.id}.`, { userId });
    }
    refuseUnknownEntitlements(ctx, integration, entitlements, ["body", "data", "attributes", "entitlements"]);
    const role = INVITE_ROLES[inviteRole];
    const ids = entitlements;
    return startJob(
      ctx,
      integration,
      INTEGRATION_WORKFLOWS.invite,
      { role: inviteRole, entitlements: ids.map((id) => ({ id })), userIds },
      () => {
        const failure = unknownEntitlements(integration, ids);
        if (failure !== undefined) return failure;
        const gone = userIds.find((id) => store.user(id) === undefined);
        if (gone !== undefined) {
          return { errorDetails: { errorType: "user_not_found", userRequired: false }, response: { message: `No user with id ${gone}.` } };
        }
        const failures = ctx.world.inviteFailures;
        const injected = failures?.failing(userIds) ?? [];
        // Read when the job runs: whoever is a member by then is an "existing member".
        const mode = ctx.world.quirks.inviteExisting ?? "conflict";
        const members = mode === "fail" ? userIds.filter((id) => integration.members.has(id) && !injected.includes(id)) : [];
        const failing = [...injected, ...members];
        // A job naming a user who cannot be invited: "whole" applies nothing, "partial" the others.
        const applied = failing.length === 0 || failures?.mode === "partial" ? userIds.filter((id) => !failing.includes(id)) : [];
        for (const userId of applied) {
          if (mode === "merge") {
            // The invitation merged into the membership: its role and set replace what was there.
            store.setMember(integration.id, userId, { role, entitlements: ids });
            continue;
          }
          // Two invites in flight for one user: the later one adds to what the earlier one granted.
          const current = integration.members.get(userId)?.entitlements ?? [];
          store.setMember(integration.id, userId, { role, entitlements: [...current, ...ids] });
        }
        if (failing.length === 0) return undefined;
        if (injected.length === 0) {
          return {
            errorDetails: { errorType: ALREADY_MEMBER, userRequired: false },
            response: { message: `${members.join(", ")} already a member of ${integration.label}.`, userIds: members },
          };
        }
        return {
          errorDetails: { errorType: INVITE_FAILED_ERROR_TYPE, userRequired: false },
          response: { message: `The invitation of ${failing.join(", ")} failed (injected by the emulator).`, userIds: failing },
        };
      },
    );
  },
};

export const setEntitlements: Route = {
  method: "PATCH",
  pattern: "/integrations/:id/users/:userId",
  scopes: (world) => scopesOf("PATCH /integrations/:id/users/:userId", world.scopeTable),
  handle(ctx) {
    const body = parseBody(
      field.object({
        data: field.object({
          type: field.oneOf(["update_user_entitlement"]),
          attributes: field.object({ entitlements: field.idObjects() }),
        }),
      }),
      requireJsonBody(ctx.body, ctx.invalidJson),
    );
    const integration = integrationOf(ctx);
    const userId = writtenMember(ctx, integration);
    const ids = body.data.attributes.entitlements;
    refuseUnknownEntitlements(ctx, integration, ids, ["body", "data", "attributes", "entitlements"]);
    return startJob(ctx, integration, INTEGRATION_WORKFLOWS.update, { userId, entitlements: ids.map((id) => ({ id })) }, () => {
      const failure = unknownEntitlements(integration, ids);
      if (failure !== undefined) return failure;
      if (!integration.members.has(userId)) return notMember(integration, userId);
      ctx.world.store.setMember(integration.id, userId, { entitlements: ids });
      return undefined;
    });
  },
};

export const addRemoveEntitlements: Route = {
  method: "PATCH",
  pattern: "/integrations/:id/users/:userId/entitlements",
  scopes: (world) => scopesOf("PATCH /integrations/:id/users/:userId/entitlements", world.scopeTable),
  handle(ctx) {
    const part = field.object({ entitlements: field.idObjects().nullish() }).nullish();
    const body = parseBody(field.object({ data: field.object({ add: part, remove: part }) }), requireJsonBody(ctx.body, ctx.invalidJson));
    const toAdd = body.data.add?.entitlements ?? undefined;
    const toRemove = body.data.remove?.entitlements ?? undefined;
    if (toAdd === undefined && toRemove === undefined) {
      const msg = "at least one of add.entitlements or remove.entitlements is required";
      throw ApiError.validation([{ loc: ["body", "data"], msg, type: "value_error.missing" }]);
    }
    const integration = integrationOf(ctx);
    const userId = writtenMember(ctx, integration);
    const adding = toAdd ?? [];
    const removing = toRemove ?? [];
    refuseUnknownEntitlements(ctx, integration, adding, ["body", "data", "add", "entitlements"]);
    refuseUnknownEntitlements(ctx, integration, removing, ["body", "data", "remove", "entitlements"]);
    const payload = {
      userId,
      add: { entitlements: adding.map((id) => ({ id })) },
      remove: { entitlements: removing.map((id) => ({ id })) },
    };
    return startJob(ctx, integration, INTEGRATION_WORKFLOWS.update, payload, () => {
      const failure = unknownEntitlements(integration, [...adding, ...removing]);
      if (failure !== undefined) return failure;
      const current = integration.members.get(userId);
      if (current === undefined) return notMember(integration, userId);
      // Removal wins over an addition of the same id: the request's last word is "not this one".
      const next = [...current.entitlements, ...adding].filter((id) => !removing.includes(id));
      ctx.world.store.setMember(integration.id, userId, { entitlements: next });
      return undefined;
    });
  },
};

export const removeMember: Route = {
  method: "DELETE",
  pattern: "/integrations/:id/users/:userId",
  scopes: (world) => scopesOf("DELETE /integrations/:id/users/:userId", world.scopeTable),
  handle(ctx) {
    const integration = integrationOf(ctx);
    const wasMember = integration.members.has(param(ctx, "userId"));
    const userId = writtenMember(ctx, integration);
    // A member already gone when the job runs is still "revoked": the end state is what was asked. One who was not a member
    // when the write was accepted (`nonMemberWrite: "job-error"`) is not: that job ends in error.
    return startJob(ctx, integration, INTEGRATION_WORKFLOWS.revoke, { userId }, () => {
      if (!wasMember && !integration.members.has(userId)) return notMember(integration, userId);
      ctx.world.store.removeMember(integration.id, userId);
      return undefined;
    });
  },
};
