/** Request bodies of the contract, in one place. The user bodies are *assumed* (api-contract.md, "Users"). */
import { idOf } from "./ids";
import type { UserAttributes } from "./models";

/** The integration role given at invitation. */
export type IntegrationRole = "account_owner" | "account_collaborator";

/** Assumed: `POST /users` and `PUT /users/{id}`. */
export function userBody({ email, firstName, lastName, role, isGuest }: UserAttributes, id?: string) {
  // `isGuest` always sent: PUT replaces every writable attribute; the service must not guess.
  const attributes = { email, firstName, lastName, role, isGuest: isGuest ?? false };
  return { data: { ...(id === undefined ? {} : { id: idOf(id) }), type: "user", attributes } };
}

const refs = (ids: readonly string[]) => ids.map((id) => ({ id }));

/** `POST /integrations/{id}/users` (public). */
export function inviteBody(userIds: readonly string[], role: IntegrationRole, entitlements: readonly string[]) {
  const attributes = { role, entitlements: refs(entitlements), userIds: userIds.map(idOf) };
  return { data: { type: "invite_tenant_users", attributes } };
}

/** `PATCH /integrations/{id}/users/{userId}`: replaces the whole set (public). */
export function setEntitlementsBody(entitlements: readonly string[]) {
  return { data: { type: "update_user_entitlement", attributes: { entitlements: refs(entitlements) } } };
}

/** `PATCH /integrations/{id}/users/{userId}/entitlements` (public). */
export function changeEntitlementsBody(add: readonly string[], remove: readonly string[]) {
  return { data: { add: { entitlements: refs(add) }, remove: { entitlements: refs(remove) } } };
}
