/**
 * Setup of the unit tier (`npm run test:unit`): no test in it may start a process. Every way
 * `node:child_process` starts one throws instead, so a test that would spawn fails at once and
 * names the function, rather than slowing the tier down or leaking a process.
 */
import { syncBuiltinESMExports } from "node:module";

const childProcess = process.getBuiltinModule("node:child_process") as unknown as Record<string, unknown>;
for (const name of ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"]) {
  childProcess[name] = () => {
    throw new Error(
      `the unit tier starts no process, but a test called child_process.${name}: move the test to the host tier (see vitest.config.mts)`,
    );
  };
}
// `import { spawn } from "node:child_process"` in ES modules reads these bindings too.
syncBuiltinESMExports();
