/** Which properties a `replaceOnChanges` path asks to replace a resource for, given the paths a handler's diff found changed. */
import { describe, expect, it } from "vitest";
import { replacesFor } from "../../src/host/replace-on-changes";

describe("replacesFor", () => {
  it("names the root of each changed path a path contains, as the engine's containment goes", () => {
    expect(replacesFor(["email"], ["email", "firstName"])).toEqual(["email"]);
    expect(replacesFor(["email"], ["firstName"])).toEqual([]);
    expect(replacesFor(["users"], ["users[ann@example.com].role"])).toEqual(["users"]);
    expect(replacesFor(["*"], ["lastName"])).toEqual(["lastName"]);
    // An element by key, quoted or not, with the root quoted too; another element's change is not contained.
    for (const path of ['users["ann@example.com"]', 'users["ann@example.com"].role', '["users"]["ann@example.com"].role']) {
      expect(replacesFor([path], ["users[ann@example.com].role"]), path).toEqual(["users"]);
      expect(replacesFor([path], ["users[bob@example.com].role"]), path).toEqual([]);
    }
    expect(replacesFor(["users[*].role"], ["users[bob@example.com].role", "users[bob@example.com].lastName"])).toEqual(["users"]);
    // A path below what changed as a whole (a user added or removed) is not known to have changed.
    expect(replacesFor(['users["ann@example.com"].role'], ["users[ann@example.com]"])).toEqual([]);
    // A name that only starts like another is not it.
    expect(replacesFor(["role"], ["roles"])).toEqual([]);
  });
});
