/**
 * The fleet's CLI tests: one stack (`acme`) of the stack-per-workspace example project on its own emulator, and the
 * `workspace-access-fleet` bin of the packed tarball run in that project with the stack's environment. Every run's output is
 * kept, for the tests that check no output holds a key.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { Emulator, EmulatorOptions } from "../../src/emulator/index";
import { packedTemplate } from "../support/packed.ts";
import type { Project } from "../support/project.ts";
import { stackPerWorkspaceProject, startTestEmulator } from "./scenario.ts";
import { type CliConfigValue, type CliStack, openCliStack, outputOf } from "./support.ts";

export interface FleetFixture {
  emu: Emulator;
  project: Project;
  acme: CliStack;
  /** Every run's stdout and stderr, in order. */
  outputs: string[];
  /** Runs `workspace-access-fleet` with `args` in the project. */
  fleet(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
}

/** The fixture; `apiKey` as acme's stack config holds it (default: the emulator's key, as a secret). */
export async function fleetFixture(
  options: { emulator?: EmulatorOptions; apiKey?: (emu: Emulator) => CliConfigValue } = {},
): Promise<FleetFixture> {
  const emu = await startTestEmulator(options.emulator);
  const project = await stackPerWorkspaceProject();
  const fleetBin = path.join(await packedTemplate(), "node_modules", ".bin", "workspace-access-fleet");
  const acme = await openCliStack({
    projectDir: project.dir,
    stackName: "acme",
    config: { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": options.apiKey?.(emu) ?? { secret: emu.apiKey } },
  });
  const outputs: string[] = [];
  return {
    emu,
    project,
    acme,
    outputs,
    async fleet(args) {
      const run = await outputOf(spawn(fleetBin, args, { cwd: project.dir, env: acme.env, stdio: ["ignore", "pipe", "pipe"] }));
      outputs.push(`${run.stdout}${run.stderr}`);
      return run;
    },
    async dispose() {
      await acme.remove();
      await Promise.all([project.remove(), emu.close()]);
    },
  };
}
