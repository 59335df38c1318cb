/**
 * Options a transform adds, through the real `pulumi` CLI. The engine hands a dynamic provider no options, so the classes copy
 * `customTimeouts`, `import` and `ignoreChanges` into hidden inputs when a resource is declared; a transform runs after that, so
 * the package copies them again from the options the transforms leave: after the resource's own `transforms` by itself, after
 * a component's `transforms` and the stack's with `applyTransformedOptions()`. A `customTimeouts.create` a transform adds bounds
 * the create's job wait (`jobTimeoutSeconds` is 60 s here: the class's copy alone would wait that long), and an `import` with
 * `ignoreChanges` adopts the user, writing nothing for the ignored attributes. Where the language host passes no stack transform
 * on, `applyTransformedOptions()` fails the package's resources with its own error, before anything is sent.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cli, cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

/** The transforms: a timeout for every entitlement, an import with `ignoreChanges` for grace. */
const transforms = `
const addTimeout: pulumi.ResourceTransform = (args) =>
  args.type === wa.IntegrationEntitlement.type
    ? { props: args.props, opts: { ...args.opts, customTimeouts: { create: config.get("createTimeout") ?? "2s" } } }
    : undefined;
const adoptGrace: pulumi.ResourceTransform = (args) =>
  args.type === wa.User.type && args.name === "grace"
    ? { props: args.props, opts: { ...(args.opts as pulumi.CustomResourceOptions), import: GRACE, ignoreChanges: ["firstName", "role"] } }
    : undefined;
`;
const ENTITLEMENT = `{ integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"] }`;
const GRACE_ARGS = `{ email: "grace@example.com", firstName: "Gracie", lastName: "Hopper", role: "workspace_login_only" }`;
const header = programHeader({ ALAN: users.alan, GRACE: users.grace, YOUTUBE: integrations.youtube }) + transforms;

/** The programs, each giving the same options by another kind of transform. */
const PROGRAMS = {
  "the resource's own transforms": `${header}
new wa.IntegrationEntitlement("alan-youtube", ${ENTITLEMENT}, { transforms: [addTimeout] });
new wa.User("grace", ${GRACE_ARGS}, { transforms: [adoptGrace] });
`,
  "a stack transform, with applyTransformedOptions": `${header}
pulumi.runtime.registerResourceTransform(addTimeout);
pulumi.runtime.registerResourceTransform(adoptGrace);
wa.applyTransformedOptions();
new wa.IntegrationEntitlement("alan-youtube", ${ENTITLEMENT});
new wa.User("grace", ${GRACE_ARGS});
`,
  "a component's transforms, with applyTransformedOptions": `${header}
wa.applyTransformedOptions();
const team = new pulumi.ComponentResource("acme:index:Team", "team", {}, { transforms: [addTimeout, adoptGrace] });
new wa.IntegrationEntitlement("alan-youtube", ${ENTITLEMENT}, { parent: team });
new wa.User("grace", ${GRACE_ARGS}, { parent: team });
`,
};

/**
 * Whether the CLI's Node.js language host passes a stack transform on to the engine: the one the CLI tier builds (sdk v3.68.0,
 * the newest the Go module proxy serves) proxies the resource monitor with no `RegisterStackTransform`, so the program fails at
 * `registerResourceTransform` (UNIMPLEMENTED). A newer host's binary names the method.
 */
const hostRunsStackTransforms =
  "binDir" in cli && fs.readFileSync(path.join(cli.binDir, "pulumi-language-nodejs")).includes("RegisterStackTransform");

for (const [kind, program] of Object.entries(PROGRAMS)) {
  const own = kind.startsWith("the resource's own");
  const note = own || hostRunsStackTransforms ? skipNote : " (skipped: the CLI's Node.js language host runs no stack transforms)";
  describe.skipIf(!cliAvailable || !(own || hostRunsStackTransforms))(
    `options ${kind} adds, through the real pulumi CLI${note}`,
    {
      timeout: 300_000,
    },
    () => {
      let h: HabitsStack;
      const name = `habits-transforms-${Object.keys(PROGRAMS).indexOf(kind)}`;

      beforeAll(async () => {
        h = await habitsStack(name, program, { "workspace-access:jobTimeoutSeconds": "60" });
      }, SETUP_TIMEOUT_MS);

      afterAll(async () => {
        await h?.dispose();
      });

      it("a customTimeouts.create it adds bounds the create's job wait; an import with ignoreChanges adopts the user", async () => {
        h.emulator.jobs.hangNext(1);
        const { run, requests } = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
        expect(run.code).not.toBe(0);
        const job = h.emulator.jobs.list().find((j) => j.status === "running")!;
        expect(run.output).toContain(
          `The job ${job.id} did not finish within this resource's customTimeouts.create, 2s from the start of its create`,
        );
        // grace is adopted, not created, and what ignoreChanges names is left as the record has it.
        expect(writesOf(requests).filter((w) => w.split(" ")[1]?.startsWith("/users"))).toEqual([]);
        expect(h.emulator.users.get(users.grace)).toMatchObject({ firstName: "Grace", role: "workspace_super_admin" });
        const grace = dynamicResources(await h.stack.exportState()).find((r) => r.urn.endsWith("::grace"));
        expect(grace?.id).toBe(users.grace);
        h.emulator.jobs.release(job.id);
        expect(writesOf((await h.step((s) => s.up())).requests)).toEqual([]);
      });

      it("editing the timeout it adds plans no change, nor does the import once adopted", async () => {
        await h.stack.setConfig(`${name}:createTimeout`, "1h30m");
        const { run, requests } = await h.step((s) => s.up("--expect-no-changes"));
        expect(run.code).toBe(0);
        expect(writesOf(requests)).toEqual([]);
      });
    },
  );
}

describe.skipIf(!cliAvailable || hostRunsStackTransforms)(
  `applyTransformedOptions where the Node.js language host runs no stack transforms, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let h: HabitsStack;

    beforeAll(async () => {
      h = await habitsStack("habits-transforms-refused", `${header}wa.applyTransformedOptions();\nnew wa.User("grace", ${GRACE_ARGS});\n`);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("fails the package's resources with an error naming it and the engine's refusal, sending nothing", async () => {
      const { run, requests } = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("applyTransformedOptions: the Pulumi engine did not register the package's stack transform (");
      expect(run.output).toContain("older than stack transforms does not pass one on");
      expect(writesOf(requests)).toEqual([]);
      expect(dynamicResources(await h.stack.exportState())).toEqual([]);
    });
  },
);
