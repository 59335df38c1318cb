/** What the `WorkspaceUsers` handler tests share: the users they declare, their ids in the seeds, and the set's inputs. */
import type { changedPaths } from "../../src/host/users/workspace-users-provider";
import type { Props } from "../../src/shared/inputs";

/** A `WorkspaceUsers` state, as the handlers take it. */
export type Outputs = Parameters<typeof changedPaths>[0];

export const ANN = "00000000-0000-4000-8000-00000000a001";
export const BOB = "00000000-0000-4000-8000-00000000a002";
export const ann = { email: "ann@example.com", firstName: "Ann", lastName: "Lee" };
export const bob = { email: "bob@example.com", firstName: "Bob", lastName: "Ray" };
export const cara = { email: "cara@example.com", firstName: "Cara", lastName: "Moe" };

/** The inputs `check` hands on for these users (keyed as the program's class keys them). */
export const setOf = (...users: Array<Record<string, unknown>>): Props => ({
  users: Object.fromEntries(users.map((u) => [String(u.email).toLowerCase(), u])),
});
