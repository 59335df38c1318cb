/**
 * Secret inputs through the real `pulumi` CLI: what the package derives from them and stores for comparing only (digests)
 * is stored encrypted. A digest is no protection for a secret: it is unsalted, and an email or a name is recovered by
 * hashing guesses. So `pulumi stack export` (as a CI job uploads it) must hold no plain digest of a secret value: not the
 * one of a `User`'s secret email in a `WorkspaceUsers`' hidden `__declaredElsewhere`, not the ones `unapplied` records for
 * a `User` or a set's user whose secret first name an update left unsent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../../src/shared/digest";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, skipNote } from "./support.ts";

const SECRET_EMAIL = "secret.person@example.com";

const program = `${programHeader({})}
const last = config.get("last") ?? "Alpha";
new wa.User("sec", { email: pulumi.secret("${SECRET_EMAIL}"), firstName: "Sec", lastName: "Ret" });
new wa.WorkspaceUsers("plain", { users: [{ email: "plain.person@example.com", firstName: "Plain", lastName: "Person" }] });
new wa.User("zed", { email: "zed@example.com", firstName: pulumi.secret("Zebediah"), lastName: last });
new wa.WorkspaceUsers("crew", { users: [{ email: "yan@example.com", firstName: pulumi.secret("Yannick"), lastName: last }] });
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
  },
);
