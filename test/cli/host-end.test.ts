/**
 * What a provider host leaves behind for the next one, through the real `pulumi` CLI, which ends the host with SIGINT right
 * after its last answer (node dies of it before any exit handler): node's compile cache, which the host turned on and which
 * node writes only at exit, and the rate limit the client learnt from the service's RateLimit headers. Both are written
 * before each provider method returns (src/host/host-end.ts), so an `up` leaves them on disk: before, the compile cache's
 * folder stayed empty after any number of runs. The test runs as users do: no NODE_COMPILE_CACHE (the tiers set one), the
 * system's temporary folder its own, the package's cache folder on.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_LIMITS_DIR } from "../../src/client/rate-memory";
import type { Emulator } from "../../src/emulator/index";
import { packedProject } from "../support/packed.ts";
import { SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

const program = `import * as wa from "pulumi-workspace-access";
new wa.User("joan", { email: "joan@example.com", firstName: "Joan", lastName: "Clarke" });
`;

describe.skipIf(!cliAvailable)(
  `what a provider host leaves for the next, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let emulator: Emulator;
    let project: Awaited<ReturnType<typeof packedProject>>;
    let stack: CliStack;
    let tmp: string;

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wa-cli-host-end-"));
      emulator = await startTestEmulator({ rateLimit: { requests: 1000, windowMs: 1000, headers: true } });
      project = await packedProject({ name: "host-end", files: { "index.ts": program } });
      stack = await openCliStack({
        projectDir: project.dir,
        config: { "workspace-access:baseUrl": emulator.url, "workspace-access:apiKey": { secret: emulator.apiKey } },
        env: {
          NODE_COMPILE_CACHE: undefined,
          NODE_DISABLE_COMPILE_CACHE: undefined,
          TMPDIR: tmp,
          WORKSPACE_ACCESS_CACHE_DIR: path.join(tmp, "wa"),
        },
      });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.remove();
      await Promise.all([project?.remove(), emulator?.close()]);
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it("an up leaves the compile cache the host turned on, and the rate limit it learnt, on disk", async () => {
      const run = await stack.up();
      expect(run.code, run.output).toBe(0);
      // <tmp>/node-compile-cache/v<node>-<arch>-<flags>-<uid>/: one folder, the host's (the program's process turns none on).
      const folders = fs.readdirSync(path.join(tmp, "node-compile-cache"));
      expect(folders).toHaveLength(1);
      // The package's modules, zod's and undici's: far more than a handful.
      expect(fs.readdirSync(path.join(tmp, "node-compile-cache", folders[0] ?? "")).length).toBeGreaterThan(100);
      const limits = fs.readdirSync(path.join(tmp, "wa", RATE_LIMITS_DIR)).filter((file) => file.endsWith(".json"));
      expect(limits).toHaveLength(1);
    });
  },
);
