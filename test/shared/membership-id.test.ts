import { describe, expect, it } from "vitest";
import { parseId } from "../../src/host/entitlement/entitlement-state";
import { splitMembershipId } from "../../src/shared/membership-id";

describe("a membership's id", () => {
  it("is two non-empty ids joined by one slash", () => {
    expect(splitMembershipId("int-1/user-1")).toEqual({ integrationId: "int-1", userId: "user-1" });
    for (const wrong of ["", "int-1", "int-1/", "/user-1", "/", "int-1/user-1/x", "int-1//user-1"]) {
      expect(splitMembershipId(wrong), wrong).toBeUndefined();
    }
  });

  it("is refused by the provider exactly where the rule refuses it, naming the id and the form", () => {
    expect(parseId("int-1/user-1")).toEqual({ integrationId: "int-1", userId: "user-1" });
    for (const wrong of ["int-1", "int-1/user-1/x", "/user-1"]) {
      expect(() => parseId(wrong)).toThrow(`"${wrong}" is not an IntegrationEntitlement id: expected <integrationId>/<userId>`);
    }
  });
});
