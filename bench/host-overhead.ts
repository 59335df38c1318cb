/**
 * What the package adds to `BENCH_HOST_N` (300) `User` creates, `BENCH_INFLIGHT` (10) at a time, two ways:
 *
 * - **Through the host** (the target's own terms): the dynamic-provider host the CLI starts
 *   (`@pulumi/pulumi/cmd/dynamic-provider`, a fresh one per run, as each deployment gets), in a project whose
 *   `node_modules` holds the package, driven over gRPC as the engine drives it: `Configure`, then `Check` and
 *   `Create` for each resource. Three providers in the same host: the no-op one (bench/workload.ts), a provider that
 *   only sends the same `POST /users` with undici (the least any provider that creates a user can do: no check, no
 *   retry, no pacing, no parsing beyond `JSON.parse`), and the package's `User`. The floor is the no-op's time plus the
 *   same POSTs sent raw, `BENCH_INFLIGHT` at a time, from this process (`rawMs`); the bare POST provider's time is given
 *   beside it. Median of `BENCH_RUNS` (3) runs, each run's ratios kept. A second floor sends the same POSTs from a fresh
 *   process (`coldRawMs`: undici loaded, then the POSTs, in a new `node`), as each host is a fresh process: this process's
 *   sender has run the same code hundreds of times before, the host's runs it cold.
 * - **In process** (no host, no gRPC, which the no-op pays alike): the provider's `create` called in this process against
 *   the same raw POSTs. Best of the runs. `node --cpu-prof bench/host-overhead.ts` profiles it.
 *
 * Every provider sends to an emulator of its own, in this process. `node bench/host-overhead.ts` after `npm run
 * build` prints both as JSON; `npm run bench` prints them as a table (bench/run.ts).
 */
import * as childProcess from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";
import type { Emulator } from "../src/emulator/index";
import { repoRoot } from "../test/support/paths.ts";
import { NOOP_PROVIDER, startEmulator, userBody } from "./workload.ts";

const requireDist = createRequire(path.join(repoRoot, "package.json"));
/** The modules the host itself loads: @pulumi/pulumi's own gRPC and protobuf, the same copies its host uses. */
const requirePulumi = createRequire(requireDist.resolve("@pulumi/pulumi/package.json"));
const n = Number(process.env.BENCH_HOST_N ?? 300);
const inFlight = Number(process.env.BENCH_INFLIGHT ?? 10);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3) || 1);
process.env["WORKSPACE_ACCESS_CACHE_DIR"] = "off";

/** A provider that sends each create's `POST /users` with undici and nothing else; its settings are the package's. */
const BARE_POST_PROVIDER = `const { Pool } = require("undici");
let settings;
let pool;
exports.provider = {
  async configure(req) {
    settings = { baseUrl: new URL(req.config.get("workspace-access:baseUrl")), apiKey: req.config.get("workspace-access:apiKey") };
  },
  async check(_olds, news) { return { inputs: news }; },
  async create(inputs) {
    pool ??= new Pool(settings.baseUrl.origin, { connections: ${inFlight} });
    const { email, firstName, lastName, role, isGuest } = inputs;
    const body = JSON.stringify({ data: { type: "user", attributes: { email, firstName, lastName, role, isGuest } } });
    const headers = { "x-api-key": settings.apiKey, "content-type": "application/json", accept: "application/json" };
    const res = await pool.request({ method: "POST", path: settings.baseUrl.pathname.replace(/\\/$/, "") + "/users", headers, body });
    const answer = JSON.parse(await res.body.text());
    return { id: answer.data.id, outs: { ...inputs, status: "live" } };
  },
};
`;

/** The three providers, by the one-line `__provider` a resource carries (the package's as src/program/resource-options.ts registers it). */
const PROVIDERS = {
  noop: 'exports.handler = () => require("bench-noop-provider").provider;\n',
  barePost: 'exports.handler = () => require("bench-bare-post-provider").provider;\n',
  package: 'exports.handler = () => require("pulumi-workspace-access/provider/user").provider;\n',
} as const;
type Twin = keyof typeof PROVIDERS;

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

/** The inputs of user `i` as the package's `User` registers them (no adoption search: the same POST as the raw floor's). */
const userInputs = (i: number) => ({ ...userBody(i), adoptExisting: false, deleteOnDestroy: false });

/** A project the host runs in: the package (this checkout, built), the no-op and bare POST providers, undici for the latter. */
function hostProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-host-"));
  const modules = path.join(dir, "node_modules");
  const write = (name: string, source: string) => {
    fs.mkdirSync(path.join(modules, name), { recursive: true });
    fs.writeFileSync(path.join(modules, name, "index.js"), source);
    fs.writeFileSync(path.join(modules, name, "package.json"), JSON.stringify({ name, main: "index.js" }));
  };
  write("bench-noop-provider", NOOP_PROVIDER);
  write("bench-bare-post-provider", BARE_POST_PROVIDER);
  fs.symlinkSync(repoRoot, path.join(modules, "pulumi-workspace-access"), "dir");
  fs.symlinkSync(path.dirname(requireDist.resolve("undici/package.json")), path.join(modules, "undici"), "dir");
  return dir;
}

/** Starts the dynamic-provider host as the CLI's `pulumi-resource-pulumi-nodejs` does; its gRPC port. */
async function startHost(dir: string): Promise<{ port: string; cpuMs(): number; stop(): Promise<void> }> {
  const script = requireDist.resolve("@pulumi/pulumi/cmd/dynamic-provider");
  // The engine's address is the host's one argument; nothing here calls the engine (no logging at the default level).
  const host = childProcess.spawn(process.execPath, [script, "127.0.0.1:1"], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => host.once("exit", () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    host.stdout.on("data", (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes("\n")) resolve(out.trim());
    });
    host.once("exit", (code) => reject(new Error(`the dynamic-provider host exited (${code}) before it listened`)));
  });
  return {
    port,
    // The host's CPU time so far (user and system, from /proc: Linux only, 0 elsewhere), in the kernel's ticks of 10 ms.
    cpuMs() {
      try {
        const fields = fs.readFileSync(`/proc/${host.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
      } catch {
        return 0;
      }
    },
    async stop() {
      host.kill();
      await exited;
    },
  };
}

/** `BENCH_HOST_N` creates of one twin through a fresh host: Configure, then Check and Create each, as the engine sends them. */
async function throughHost(dir: string, twin: Twin): Promise<{ ms: number; hostCpuMs: number }> {
  const grpc = requirePulumi("@grpc/grpc-js");
  const rpc = requirePulumi("./proto/provider_grpc_pb");
  const proto = requirePulumi("./proto/provider_pb");
  const { Struct } = requirePulumi("google-protobuf/google/protobuf/struct_pb");
  const emu = twin === "noop" ? undefined : await startEmulator({});
  const host = await startHost(dir);
  const client = new rpc.ResourceProviderClient(`127.0.0.1:${host.port}`, grpc.credentials.createInsecure());
  const call = (method: string, request: unknown) =>
    new Promise<{ getInputs(): unknown }>((resolve, reject) =>
      client[method](request, (error: Error | null, answer: { getInputs(): unknown }) => (error ? reject(error) : resolve(answer))),
    );
  try {
    const configure = new proto.ConfigureRequest();
    configure.setArgs(
      Struct.fromJavaScript({
        "workspace-access:baseUrl": emu?.url ?? "http://127.0.0.1:1/",
        "workspace-access:apiKey": emu?.apiKey ?? "",
      }),
    );
    await call("configure", configure);
    const cpuBefore = host.cpuMs();
    const ms = await pool(async (i) => {
      const urn = `urn:pulumi:bench::bench::pulumi-nodejs:dynamic/workspace-access:User::u${i}`;
      const check = new proto.CheckRequest();
      check.setUrn(urn);
      check.setOlds(Struct.fromJavaScript({}));
      check.setNews(Struct.fromJavaScript({ ...userInputs(i), __provider: PROVIDERS[twin] }));
      const checked = await call("check", check);
      const create = new proto.CreateRequest();
      create.setUrn(urn);
      create.setProperties(checked.getInputs());
      await call("create", create);
    });
    return { ms, hostCpuMs: host.cpuMs() - cpuBefore };
  } finally {
    client.close();
    await host.stop();
    await emu?.close();
  }
}

/** `BENCH_HOST_N` creates through the package's provider in this process. */
async function inProcess(): Promise<number> {
  const emu: Emulator = await startEmulator({});
  const runtime = requireDist("./dist/host/provider-runtime.js");
  const { provider } = requireDist("./dist/host/user/user-provider.js");
  const config: Record<string, string> = { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey };
  await runtime.configure({ config: { get: (k: string) => config[k], require: (k: string) => config[k] ?? "" } });
  try {
    return await pool(async (i) => provider.create(userInputs(i)));
  } finally {
    runtime.useContext(undefined);
    await emu.close();
  }
}

/** What {@link SENDER} is handed: the emulator, and the attributes of each user to `POST`. */
interface SenderInput {
  url: string;
  apiKey: string;
  bodies: ReturnType<typeof userBody>[];
  inFlight: number;
}

/**
 * The one sender of both floors' `POST /users` (plain JavaScript, a function's source): undici's `Pool`, `inFlight` at a time,
 * each answer read (no parse). {@link raw} compiles it in this process (warm after the first round), {@link coldRaw} hands it
 * to a fresh `node`, so the two floors differ only in the sender's warmth.
 */
const SENDER = `(async (undici, { url, apiKey, bodies, inFlight }) => {
  const agent = new undici.Pool(new URL(url).origin, { connections: inFlight });
  const path = new URL(url).pathname.replace(/\\/$/, "") + "/users";
  const headers = { "x-api-key": apiKey, "content-type": "application/json", accept: "application/json" };
  let next = 0;
  try {
    await Promise.all(Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const body = JSON.stringify({ data: { type: "user", attributes: bodies[i] } });
        const res = await agent.request({ method: "POST", path, headers, body });
        await res.body.text();
      }
    }));
  } finally {
    await agent.close();
  }
})`;

/** {@link SENDER} as this process runs it. */
const send = vm.runInThisContext(SENDER) as (undici: unknown, input: SenderInput) => Promise<void>;

/** The script of {@link coldRaw}'s fresh `node`: its time from loading undici to the last answer read, in ms, on stdout. */
const COLD_SENDER = `const began = performance.now();
const undici = require("undici");
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
${SENDER}(undici, input).then(() => process.stdout.write(String(performance.now() - began)));
`;

/** The emulator's side of {@link SENDER}'s input, for `emu`. */
const senderInput = (emu: Emulator): SenderInput => ({
  url: emu.url,
  apiKey: emu.apiKey,
  inFlight,
  bodies: Array.from({ length: n }, (_, i) => userBody(i)),
});

/** The same `POST /users` as {@link raw}, sent from a fresh process (as each host is): the time it reports. */
async function coldRaw(): Promise<number> {
  const emu: Emulator = await startEmulator({});
  try {
    const input = JSON.stringify(senderInput(emu));
    const child = childProcess.spawn(process.execPath, ["-e", COLD_SENDER], { cwd: repoRoot, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.stdin.end(input);
    const code = await new Promise<number | null>((resolve, reject) => child.on("error", reject).on("close", resolve));
    if (code !== 0 || !Number.isFinite(Number(out))) throw new Error(`the fresh process sending the POSTs exited ${code}: ${out}`);
    return Number(out);
  } finally {
    await emu.close();
  }
}

/** The same `POST /users` sent raw with undici ({@link SENDER}), `BENCH_INFLIGHT` at a time, from this process. */
async function raw(): Promise<number> {
  const emu: Emulator = await startEmulator({});
  const input = senderInput(emu);
  try {
    const began = performance.now();
    await send(requireDist("undici"), input);
    return performance.now() - began;
  } finally {
    await emu.close();
  }
}

export interface HostOverhead {
  n: number;
  inFlight: number;
  runs: number;
  /** Through the host: medians in ms, and each run's times. */
  host: {
    packageMs: number;
    barePostMs: number;
    noopMs: number;
    rawMs: number;
    /** `package / (noop + raw)`: the target's ratio; median of the runs' and each run's. */
    ratio: number;
    ratios: number[];
    /** `barePost / (noop + raw)`: where a provider that only sends the POSTs stands against the same floor. */
    barePostRatio: number;
    barePostRatios: number[];
    /** `package / barePost`: what the package adds to the least a provider can do. */
    overBarePost: number;
    /** The POSTs sent from a fresh process (median), and both providers against `noop + coldRaw`: median and each run's. */
    coldRawMs: number;
    coldRatio: number;
    coldRatios: number[];
    barePostColdRatio: number;
    barePostColdRatios: number[];
    each: Record<Twin | "raw" | "coldRaw", number[]>;
    /** The host's CPU per create (median of the runs), from the first `Check` to the last `Create`: 0 where /proc is not. */
    hostCpuPerCreateMs: Record<Twin, number>;
  };
  /** In process: best of the runs, in ms. */
  inProcess: { packageMs: number; rawMs: number; ratio: number; each: { package: number[]; raw: number[] } };
  loadAverage: { before: string[]; after: string[] };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round2 = (x: number) => Number(x.toFixed(2));

export async function benchHostOverhead(): Promise<HostOverhead> {
  const load = os.loadavg().map((x) => x.toFixed(2));
  const dir = hostProject();
  const each: Record<Twin | "raw" | "coldRaw", number[]> = { noop: [], barePost: [], package: [], raw: [], coldRaw: [] };
  const inProc = { package: [] as number[], raw: [] as number[] };
  const cpu: Record<Twin, number[]> = { noop: [], barePost: [], package: [] };
  try {
    // One round first, not counted: this process's emulator and gRPC client run cold code in it (the hosts are fresh each run).
    for (const twin of ["noop", "barePost", "package"] as const) await throughHost(dir, twin);
    await raw();
    for (let run = 0; run < runs; run++) {
      // The order turns with each run: none of the five always goes first, on a machine still busy with the last.
      const order: (Twin | "raw" | "coldRaw")[] = ["raw", "coldRaw", "noop", "barePost", "package"];
      const turn = run % order.length;
      for (const twin of [...order.slice(turn), ...order.slice(0, turn)])
        if (twin === "raw") each.raw.push(await raw());
        else if (twin === "coldRaw") each.coldRaw.push(await coldRaw());
        else {
          const { ms, hostCpuMs } = await throughHost(dir, twin);
          each[twin].push(ms);
          cpu[twin].push(hostCpuMs);
        }
      inProc.raw.push(await raw());
      inProc.package.push(await inProcess());
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const ratios = each.package.map((p, r) => p / (each.noop[r]! + each.raw[r]!));
  const barePostRatios = each.barePost.map((b, r) => b / (each.noop[r]! + each.raw[r]!));
  const coldRatios = each.package.map((p, r) => p / (each.noop[r]! + each.coldRaw[r]!));
  const barePostColdRatios = each.barePost.map((b, r) => b / (each.noop[r]! + each.coldRaw[r]!));
  const best = (xs: number[]) => Math.min(...xs);
  return {
    n,
    inFlight,
    runs,
    host: {
      packageMs: Math.round(median(each.package)),
      barePostMs: Math.round(median(each.barePost)),
      noopMs: Math.round(median(each.noop)),
      rawMs: Math.round(median(each.raw)),
      ratio: round2(median(ratios)),
      ratios: ratios.map(round2),
      barePostRatio: round2(median(barePostRatios)),
      barePostRatios: barePostRatios.map(round2),
      overBarePost: round2(median(each.package.map((p, r) => p / each.barePost[r]!))),
      coldRawMs: Math.round(median(each.coldRaw)),
      coldRatio: round2(median(coldRatios)),
      coldRatios: coldRatios.map(round2),
      barePostColdRatio: round2(median(barePostColdRatios)),
      barePostColdRatios: barePostColdRatios.map(round2),
      each: Object.fromEntries(Object.entries(each).map(([k, v]) => [k, v.map(Math.round)])) as Record<Twin | "raw" | "coldRaw", number[]>,
      hostCpuPerCreateMs: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Number((median(v) / n).toFixed(2))])) as Record<
        Twin,
        number
      >,
    },
    inProcess: {
      packageMs: Math.round(best(inProc.package)),
      rawMs: Math.round(best(inProc.raw)),
      ratio: round2(best(inProc.package) / best(inProc.raw)),
      each: { package: inProc.package.map(Math.round), raw: inProc.raw.map(Math.round) },
    },
    loadAverage: { before: load, after: os.loadavg().map((x) => x.toFixed(2)) },
  };
}

/** The result as the rows of bench/run.ts's second table. */
export function hostTable(r: HostOverhead): string {
  const ms = (x: number) => `${x} ms`;
  const xs = (v: number[]) => v.map((x) => `${x.toFixed(2)}×`).join(" ");
  const rows = [
    ["what", "package", "floor", "ratio", "each run"],
    [
      `${r.n} User creates through the host, ${r.inFlight} in flight (median of ${r.runs})`,
      ms(r.host.packageMs),
      `no-op ${ms(r.host.noopMs)} + raw POSTs ${ms(r.host.rawMs)}`,
      `${r.host.ratio.toFixed(2)}×`,
      xs(r.host.ratios),
    ],
    [
      "  a provider that only sends the POSTs, same host",
      ms(r.host.barePostMs),
      "the same floor",
      `${r.host.barePostRatio.toFixed(2)}×`,
      xs(r.host.barePostRatios),
    ],
    ["  the package against that provider", ms(r.host.packageMs), ms(r.host.barePostMs), `${r.host.overBarePost.toFixed(2)}×`, ""],
    [
      "  the package, the POSTs of the floor sent from a fresh process",
      ms(r.host.packageMs),
      `no-op ${ms(r.host.noopMs)} + raw POSTs ${ms(r.host.coldRawMs)}`,
      `${r.host.coldRatio.toFixed(2)}×`,
      xs(r.host.coldRatios),
    ],
    [
      "  the bare POST provider, that floor",
      ms(r.host.barePostMs),
      "the same floor",
      `${r.host.barePostColdRatio.toFixed(2)}×`,
      xs(r.host.barePostColdRatios),
    ],
    [
      "  the host's CPU per create: package, bare POSTs, no-op",
      ms(r.host.hostCpuPerCreateMs.package),
      `${ms(r.host.hostCpuPerCreateMs.barePost)}, ${ms(r.host.hostCpuPerCreateMs.noop)}`,
      "",
      "",
    ],
    [
      `the same creates in process, no host (best of ${r.runs})`,
      ms(r.inProcess.packageMs),
      `raw POSTs ${ms(r.inProcess.rawMs)}`,
      `${r.inProcess.ratio.toFixed(2)}×`,
      "",
    ],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

// Run on its own (`node bench/host-overhead.ts`), not when bench/run.ts imports it.
if (path.basename(process.argv[1] ?? "") === "host-overhead.ts") {
  benchHostOverhead()
    .then((result) => console.log(JSON.stringify(result, null, 2)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
