/**
 * Secret inputs through the real `pulumi` CLI: what the package derives from them and stores for comparing only (digests)
 * is stored encrypted. A digest is no protection for a secret: it is unsalted, and an email or a name is recovered by
 * hashing guesses. So `pulumi stack export` (as a CI job uploads it) must hold no plain digest of a secret value: not the
 * one of a `User`'s secret email in a `WorkspaceUsers`' hidden `__declaredElsewhere`, not the ones `unapplied` records for
 * a `User` or a set's user whose secret first name an update left unsent. Nor do the program's checks print a secret: a
 * collision of secret emails names only the resources, on one line, and a secret unknown role is warned of unnamed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../../src/shared/digest";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, skipNote } from "./support.ts";

const SECRET_EMAIL = "secret.person@example.com";

const program = `${programHeader({})}
const last = config.get("last") ?? "Alpha";
const sec = new wa.User("sec", { email: pulumi.secret("${SECRET_EMAIL}"), firstName: "Sec", lastName: "Ret" });
const zed = new wa.User("zed", { email: "zed@example.com", firstName: pulumi.secret("Zebediah"), lastName: last });
// After the Users: a set's create proves its new users absent by two listings, which users created meanwhile would upset.
const after = { dependsOn: [sec, zed] };
new wa.WorkspaceUsers("plain", { users: [{ email: "plain.person@example.com", firstName: "Plain", lastName: "Person" }] }, after);
new wa.WorkspaceUsers("crew", { users: [{ email: "yan@example.com", firstName: pulumi.secret("Yannick"), lastName: last }] }, after);
if (flag("secretRole")) {
  new wa.User("astro", { email: "astro@example.com", firstName: "A", lastName: "Stro", role: pulumi.secret("workspace_astronaut") });
}
if (flag("collide")) {
  // Two Users of one secret email; a set listing a secret email twice; a plain set declaring "sec"'s secret email.
  new wa.User("a", { email: pulumi.secret("hidden.person@example.com"), firstName: "A", lastName: "A" });
  new wa.User("b", { email: pulumi.secret("Hidden.Person@example.com"), firstName: "B", lastName: "B" });
  new wa.WorkspaceUsers("twice", { users: [
    { email: pulumi.secret("other.hidden@example.com"), firstName: "O", lastName: "H" },
    { email: pulumi.secret("OTHER.hidden@example.com"), firstName: "O", lastName: "H" },
  ] });
  new wa.WorkspaceUsers("leak", { users: [{ email: "SECRET.Person@example.com", firstName: "L", lastName: "K" }] });
}
`;

describe.skipIf(!cliAvailable)(
  `digests of secret inputs in the state, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let h: HabitsStack;

    beforeAll(async () => {
      h = await habitsStack("secrets-in-state", program);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("stack export holds no plain digest of a secret email or a secret first name", async () => {
      await h.stack.up();
      // The first names changed in the service, the last names in the program: each update leaves the secret first name
      // unsent and records its digest in `unapplied`.
      for (const email of ["zed@example.com", "yan@example.com"]) {
        h.emulator.users.update(h.emulator.users.findByEmail(email)?.id ?? "", { firstName: "Changed" });
      }
      await h.stack.setConfig("secrets-in-state:last", "Beta");
      await h.stack.up();

      const digests = [digestOf("email", SECRET_EMAIL), digestOf("firstName", "Zebediah"), digestOf("firstName", "Yannick")];
      // Decrypted, the state does record each digest (so their absence below is the encryption's doing).
      const shown = JSON.stringify(await h.stack.exportState(true));
      for (const digest of digests) expect(shown).toContain(digest);
      const stored = JSON.stringify(await h.stack.exportState());
      for (const digest of digests) expect(stored, `${digest} in plain text`).not.toContain(digest);
      for (const value of [SECRET_EMAIL, "Zebediah", "Yannick"]) expect(stored).not.toContain(value);

      // Encrypted, they compare as before: nothing to change.
      await h.stack.preview("--expect-no-changes");
    });

    it("a secret unknown role is warned of without its value", async () => {
      await h.stack.setConfig("secrets-in-state:secretRole", "true");
      const { output } = await h.stack.preview();
      expect(output).toContain("the role (a secret) is not one of the known workspace roles");
      expect(output).not.toContain("workspace_astronaut");
      await h.stack.setConfig("secrets-in-state:secretRole", "false");
    });

    it("colliding secret emails fail the preview naming only the resources, each error on one line", async () => {
      await h.stack.setConfig("secrets-in-state:collide", "true");
      const { code, output } = await h.stack.run(["preview"], { allowFailure: true });
      expect(code).not.toBe(0);
      expect(output).toContain('User resources "a" and "b" both manage one user (its email is a secret)');
      expect(output).toContain('WorkspaceUsers "twice" lists one user twice (its email is a secret): list each user once.');
      // The plain set's own error hides the email too: the User declared it as a secret.
      expect(output).toMatch(
        /(User "sec" and WorkspaceUsers "leak"|WorkspaceUsers "leak" and User "sec") both manage one user \(its email is a secret\)/,
      );
      for (const email of ["hidden.person@example.com", "other.hidden@example.com", SECRET_EMAIL]) {
        expect(output.toLowerCase()).not.toContain(email);
      }
      // Printed as the message alone: no stack, no rejected promise dumped with it.
      expect(output).not.toMatch(/Promise \{|^\s+at /m);
      await h.stack.setConfig("secrets-in-state:collide", "false");
    });
  },
);
