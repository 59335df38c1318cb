import * as pulumi from "@pulumi/pulumi";
import { expect, it, vi } from "vitest";
import { User } from "../../src";

it("warns once when the API key is stored in plaintext: it is in the state too, until the up after --secret", async () => {
  pulumi.runtime.setAllConfig(
    { "workspace-access:apiKey": "plain-key-value-123456", "workspace-access:baseUrl": "https://a.example.com/api/v1/" },
    [],
  );
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
  const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
  new User("a", { email: "a@example.com", firstName: "A", lastName: "B" });
  new User("b", { email: "b@example.com", firstName: "B", lastName: "C" });
  const messages = warn.mock.calls.map(([m]) => String(m)).filter((m) => m.includes("plaintext"));
  expect(messages).toEqual([
    "workspace-access:apiKey is stored in plaintext in the stack config, and so in the state of the default provider, in plain text, " +
      "until the next `pulumi up` after it is stored encrypted. Run: pulumi config set --secret workspace-access:apiKey <key>, then pulumi up.",
  ]);
  expect(messages.join()).not.toContain("plain-key-value-123456");
});
