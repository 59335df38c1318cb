/**
 * Shared by the export's unit tests: fresh directories (removed after the file's tests), options
 * against an emulator, and the two-member workspace whose pages the tests alter.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, vi } from "vitest";
import { CACHE_DIR_ENV } from "../../src/client/cache-dir";
import { type Emulator, type EmulatorQuirks, startEmulator } from "../../src/emulator/index";
import type { ExportOptions } from "../../src/export/run";

const dirs: string[] = [];
/** A fresh directory path under the OS temp dir (not created). */
export function freshDir(): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-export-unit-"));
  dirs.push(parent);
  return path.join(parent, "access");
}
/** Removes the fresh directories made so far: after a file's tests, here and, per file, in the unit tier's shared workers. */
export function removeFreshDirs(): void {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
afterAll(removeFreshDirs);

/**
 * A fresh cache folder for this process ({@link CACHE_DIR_ENV}, off in every tier: vitest.config.mts), where the export
 * remembers the addresses its user gave; `vi.unstubAllEnvs()` turns it off again (the unit tier does after each file).
 */
export function freshCacheDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-export-cache-"));
  dirs.push(dir);
  vi.stubEnv(CACHE_DIR_ENV, dir);
  return dir;
}

export const env = (emulator: Emulator, key = emulator.apiKey) => ({ WORKSPACE_ACCESS_API_KEY: key });
export const options = (emulator: Emulator, extra: Partial<ExportOptions> = {}): ExportOptions => ({
  out: freshDir(),
  baseUrl: emulator.url,
  env: env(emulator),
  ...extra,
});
export const readFiles = (dir: string) =>
  Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));
export const gets = (emulator: Emulator) => emulator.requests.map((r) => `${r.method} ${r.path}`);

/** A two-user workspace with one integration (both members), for the tests that alter pages. */
export const YT = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
export const twoMembers = () => ({
  users: [
    { id: "u-ann", email: "ann@x.example", firstName: "Ann", lastName: "Lee" },
    { id: "u-bob", email: "bob@x.example", firstName: "Bob", lastName: "Ray" },
  ],
  integrations: [
    {
      id: YT,
      application: "YouTube",
      label: "YouTube acme",
      entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }],
      users: [
        { userId: "u-ann", entitlements: ["VIEWER"] },
        { userId: "u-bob", entitlements: ["VIEWER"] },
      ],
    },
  ],
});

/** The two-member workspace with cy too, who has no first name (so left out, with their membership of "YouTube acme", as u-cy). */
export function twoMembersAndCy() {
  const seed = twoMembers();
  const yt = seed.integrations[0]!;
  return {
    users: [...seed.users, { id: "u-cy", email: "cy@x.example", firstName: null, lastName: "Doe" }],
    integrations: [{ ...yt, users: [...yt.users, { userId: "u-cy", entitlements: ["VIEWER"] }] }],
  };
}

/** The second integration of {@link withTwoIntegrations}, "Slack acme". */
export const OTHER = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02";

/** The two-member workspace (ann and bob in "YouTube acme") with a second integration, "Slack acme", ann its one member. */
export function twoIntegrations(): ReturnType<typeof twoMembers> {
  const seed = twoMembers();
  const slack = {
    id: OTHER,
    application: "Slack",
    label: "Slack acme",
    entitlements: [{ id: "MEMBER" }],
    users: [{ userId: "u-ann", entitlements: ["MEMBER"] }],
  };
  return { ...seed, integrations: [...seed.integrations, slack] };
}

/** The workspace of {@link twoIntegrations}; under `quirks`, if given. */
export async function withTwoIntegrations(test: (emulator: Emulator) => Promise<void>, quirks?: EmulatorQuirks): Promise<void> {
  const emulator = await startEmulator({ seed: twoIntegrations(), ...(quirks && { quirks }) });
  try {
    await test(emulator);
  } finally {
    await emulator.close();
  }
}

export type RawPage = { data: Array<{ id: string; type: string; attributes: Record<string, unknown> }>; links?: unknown };
/** The first page of `list` (a path under the API root) as the emulator answers it now. */
export async function rawPage(emulator: Emulator, list: string): Promise<RawPage> {
  const answer = await fetch(`${emulator.url}${list}?page%5Bsize%5D=100`, { headers: { "x-api-key": emulator.apiKey } });
  return (await answer.json()) as RawPage;
}
/**
 * Makes the next `times` reads of `list` answer `page` as its only page: by default every listing
 * one export takes of it (two of every list, the second, at another page size, proving the first).
 */
export function answerWith(emulator: Emulator, list: string, page: RawPage, times = 2): void {
  emulator.fault({ method: "GET", path: `/${list}`, body: JSON.stringify({ ...page, links: { next: null } }), times });
}
export const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The lines a line diff of `a` to `b` removes and adds, in order (Myers' O(ND) algorithm: the
 * shortest edit script, as `git diff` finds it for files like these). In-process: the unit tier
 * starts no `git`.
 */
export function lineDiff(a: readonly string[], b: readonly string[]): { removed: string[]; added: string[] } {
  const v = new Map<number, number>([[1, 0]]);
  const trace: Array<Map<number, number>> = [];
  const down = (map: Map<number, number>, k: number, d: number) => k === -d || (k !== d && (map.get(k - 1) ?? -1) < (map.get(k + 1) ?? -1));
  search: for (let d = 0; d <= a.length + b.length; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x = down(v, k, d) ? v.get(k + 1)! : v.get(k - 1)! + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= a.length && y >= b.length) break search;
    }
  }
  const removed: string[] = [];
  const added: string[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const k = x - y;
    const prevK = down(trace[d]!, k, d) ? k + 1 : k - 1;
    const prevX = trace[d]!.get(prevK)!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (x === prevX) added.unshift(b[prevY]!);
    else removed.unshift(a[prevX]!);
    x = prevX;
    y = prevY;
  }
  return { removed, added };
}
