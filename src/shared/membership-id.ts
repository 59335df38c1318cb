/** A membership's id, `<integrationId>/<userId>`: the one rule for its form, for the program's `get` and the provider alike. */

/** How a membership's id is written, for messages. */
export const MEMBERSHIP_ID_FORM = "<integrationId>/<userId>";

/** The two ids a membership's id joins; `undefined` when it is not of the form {@link MEMBERSHIP_ID_FORM} (neither part empty). */
export function splitMembershipId(id: string): { integrationId: string; userId: string } | undefined {
  const [integrationId, userId, ...rest] = id.split("/");
  return integrationId && userId && rest.length === 0 ? { integrationId, userId } : undefined;
}
