/** The rows the integration routes read and write, found by the request's path or failing with 404. */
import { ApiError } from "../errors";
import { integrationUserRecord } from "../records";
import type { IntegrationRow, MemberRow, Store } from "../store";
import { param, type RequestContext } from "./context";

export function integrationOf(ctx: RequestContext): IntegrationRow {
  const id = param(ctx, "id");
  const integration = ctx.world.store.integration(id);
  if (integration === undefined) throw ApiError.notFound(`No integration with id ${id}.`);
  return integration;
}

export function memberOf(integration: IntegrationRow, userId: string): MemberRow {
  const member = integration.members.get(userId);
  if (member === undefined) throw ApiError.notFound(`The user ${userId} is not a member of the integration ${integration.id}.`);
  return member;
}

export function base(integration: IntegrationRow): string {
  return `/api/v1/integrations/${encodeURIComponent(integration.id)}`;
}

export function userRecordOf(store: Store, integration: IntegrationRow, member: MemberRow) {
  const user = store.user(member.userId);
  // Deleting a user deletes their memberships, so a member always has a user.
  if (user === undefined) throw new Error(`emulator: member ${member.userId} has no user`);
  return integrationUserRecord(integration, member, user);
}
