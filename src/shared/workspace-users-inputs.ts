/** The inputs of a `WorkspaceUsers`: a set of users keyed by email in its one form (lower case), each with a `User`'s attribute rules. */
import { z } from "zod";
import { emailKey } from "../client/models";
import { DECLARED_ELSEWHERE, SECRET_USERS } from "./input-constants";
import { userInputs } from "./inputs";

/** One user of the set: a `User`'s attributes (`role` and `isGuest` absent when left out: the service's value is kept). */
const userEntry = userInputs.pick({ email: true, firstName: true, lastName: true, role: true, isGuest: true });

/** Inputs of a `WorkspaceUsers`: each key is its user's email in lower case (the program's class keys them so). */
export const workspaceUsersInputs = z.strictObject({
  users: z
    .record(z.string(), userEntry, { error: 'users must map each email to a user such as { email, firstName: "Ann", lastName: "Lee" }' })
    .superRefine((users, ctx) => {
      for (const [key, user] of Object.entries(users)) {
        if (key !== emailKey(user.email))
          ctx.addIssue({ code: "custom", path: [key], message: `the key of ${user.email} must be ${emailKey(user.email)}` });
      }
    }),
  deleteOnDestroy: userInputs.shape.deleteOnDestroy,
  [DECLARED_ELSEWHERE]: z.array(z.string()).optional(),
  [SECRET_USERS]: z.boolean().optional(),
});

/** One user of a `WorkspaceUsers` after `check`. */
export type WorkspaceUserInputs = z.output<typeof userEntry>;
