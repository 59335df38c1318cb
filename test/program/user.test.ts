import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { User } from "../../src/program/user";
import { recordedInputs } from "../support/recorded-inputs";

describe("the hidden __secretEmail input of a User", () => {
  it("is true for an email given as a secret (pulumi.secret, a secret config value), and absent for a plain one", async () => {
    const inputs = await recordedInputs();
    pulumi.runtime.setAllConfig({ "p:email": "ei@example.com" }, ["p:email"]);
    const names = { firstName: "Ann", lastName: "Lee" };
    const users = [
      new User("plain", { ...names, email: "ann@example.com" }),
      new User("plain-output", { ...names, email: pulumi.output("bo@example.com") }),
      new User("secret", { ...names, email: pulumi.secret("cy@example.com") }),
      // A secret that is not a string yet (another output's): the flag does not wait for the value.
      new User("secret-config", { ...names, email: new pulumi.Config("p").requireSecret("email") }),
      new User("secret-output", { ...names, email: pulumi.secret(pulumi.output("di@example.com").apply((e) => e)) }),
    ];
    await Promise.all(users.map((user) => new Promise((resolve) => user.id.apply(resolve))));
    expect(inputs.get("plain")).not.toHaveProperty("__secretEmail");
    expect(inputs.get("plain-output")).not.toHaveProperty("__secretEmail");
    expect(inputs.get("secret")?.__secretEmail).toBe(true);
    expect(inputs.get("secret-config")?.__secretEmail).toBe(true);
    expect(inputs.get("secret-output")?.__secretEmail).toBe(true);
    // The flag makes nothing else secret or plain: the email is registered as it was given (a secret stays one).
    expect(inputs.get("plain")?.email).toBe("ann@example.com");
    expect(inputs.get("secret")?.email).toEqual({
      [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig,
      value: "cy@example.com",
    });
    expect(inputs.get("secret")?.__secretEmail).not.toHaveProperty("value");
  });
});
