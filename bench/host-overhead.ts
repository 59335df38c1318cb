/**
 * What the package adds to a `User` create, in process (issue 33's host overhead, without the
 * host's gRPC, which the no-op twin pays alike): `BENCH_N` (300) creates through the provider's
 * `create`, `BENCH_INFLIGHT` (10) at a time, against the same `POST /users` sent raw with undici, 10
 * at a time, to a fresh emulator each. Best of `BENCH_RUNS` (3). Run with `node bench/host-overhead.ts`
 * after `npm run build`; `node --cpu-prof bench/host-overhead.ts` profiles it.
 */
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import type { Emulator } from "../src/emulator/index";
import { repoRoot } from "../test/support/paths.ts";
import { startEmulator, userBody } from "./workload.ts";

const requireDist = createRequire(path.join(repoRoot, "package.json"));
const n = Number(process.env.BENCH_N ?? 300);
const inFlight = Number(process.env.BENCH_INFLIGHT ?? 10);
const runs = Number(process.env.BENCH_RUNS ?? 3);
process.env["WORKSPACE_ACCESS_CACHE_DIR"] = "off";

/** Runs `task(i)` for i < n, `inFlight` at a time; the time it took in ms. */
async function pool(task: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
  return performance.now() - began;
}

async function packageRun(): Promise<number> {
  const emu: Emulator = await startEmulator({});
  const runtime = requireDist("./dist/host/provider-runtime.js");
  const { provider } = requireDist("./dist/host/user/user-provider.js");
  const config: Record<string, string> = { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey };
  await runtime.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] ?? "" } });
  try {
    return await pool(async (i) => provider.create({ ...userBody(i), adoptExisting: false, deleteOnDestroy: false }));
  } finally {
    runtime.useContext(undefined);
    await emu.close();
  }
}

async function rawRun(): Promise<number> {
  const emu: Emulator = await startEmulator({});
  const undici = requireDist("undici") as typeof import("undici");
  const agent = new undici.Pool(new URL(emu.url).origin, { connections: inFlight });
  const base = new URL(emu.url).pathname.replace(/\/$/, "");
  try {
    return await pool(async (i) => {
      const body = JSON.stringify({ data: { type: "user", attributes: userBody(i) } });
      const headers = { "x-api-key": emu.apiKey, "content-type": "application/json", accept: "application/json" };
      const res = await agent.request({ method: "POST", path: `${base}/users`, headers, body });
      await res.body.text();
    });
  } finally {
    await agent.close();
    await emu.close();
  }
}

async function main(): Promise<void> {
  const load = os.loadavg().map((x) => x.toFixed(2));
  const pkg: number[] = [];
  const raw: number[] = [];
  for (let r = 0; r < runs; r++) {
    raw.push(await rawRun());
    pkg.push(await packageRun());
  }
  const best = (xs: number[]) => Math.min(...xs);
  const result = {
    n,
    inFlight,
    packageMs: Math.round(best(pkg)),
    rawMs: Math.round(best(raw)),
    addedPerCreateMs: Number(((best(pkg) - best(raw)) / n).toFixed(3)),
    runs: { pkg: pkg.map(Math.round), raw: raw.map(Math.round) },
    loadAverage: { before: load, after: os.loadavg().map((x) => x.toFixed(2)) },
  };
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
