/** An export, end to end: a directory refused before any request unless new or empty, then every file written or none. */
import * as path from "node:path";
import { type AccessScope, formatAccessFile } from "./access-file";
import { buildAccessFile } from "./build";
import type { LeftOut } from "./build-left-out";
import { type Connection, type ExportDeps, exportConnection, withClient } from "./connect";
import { choosePackageSpec, type PackageSpecChoice } from "./package-spec";
import { rememberWorkspace } from "./known-workspaces";
import { chooseShape, type ProjectShape, projectFiles } from "./project";
import { type ExportProgress, readWorkspace, selectIntegrations } from "./snapshot";
import { refuseNonEmpty, writeFiles } from "./write";

/** Options of {@link exportWorkspace}. */
export interface ExportOptions {
  /** The directory to write the project to: new or empty (nothing is ever overwritten). */
  out: string;
  /**
   * The workspace's API root, e.g. `https://acme.example.com/api/v1/`. Default: the environment, as the provider
   * reads it (`WORKSPACE_ACCESS_BASE_URL`, or `WORKSPACE_ACCESS_WORKSPACE` and `WORKSPACE_ACCESS_HOST`). Either is
   * remembered in the cache folder of `process.env` (`WORKSPACE_ACCESS_CACHE_DIR`), for a later check to read the
   * address `access.yaml` records without being given it again (`known-workspaces.ts`).
   */
  baseUrl?: string;
  /** Only the memberships of these integrations (ids or labels, exactly). Default: every integration. */
  integrations?: string[];
  /** Only the users with a membership in those integrations. */
  membersOnly?: boolean;
  /** Where `WORKSPACE_ACCESS_API_KEY` (the only source of the key) and the address are read. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * The generated `package.json`'s spec of this package (`--package-spec`): a version range, a tarball
   * (`file:../pulumi-workspace-access-0.1.0.tgz`) or a git URL. Default: one `npm install` resolves (`package-spec.ts`).
   */
  packageSpec?: string;
  /** `index.ts`'s shape (`--shape`): a resource per record, or sets (docs/export.md). Default: by size, see `chooseShape`. */
  shape?: ProjectShape;
  /** Called as pages arrive. */
  onProgress?: (progress: ExportProgress) => void;
}

/** What an export wrote. */
export interface ExportResult {
  /** The project directory, absolute, and the files written in it, sorted. */
  dir: string;
  files: string[];
  users: number;
  integrations: number;
  memberships: number;
  /** The records the project could not declare, and why: only recorded under `access.yaml`'s `leftOut`. */
  leftOut: LeftOut[];
  /** Requests sent, retries included. */
  requests: number;
  elapsedMs: number;
  /** The generated `package.json`'s spec of this package, and why that one. */
  packageSpec: PackageSpecChoice;
  /** `index.ts`'s shape, and why that one. */
  shape: { shape: ProjectShape; why: string };
}

/** The data file of an exported project. */
export const ACCESS_FILE = "access.yaml";

/** Writes the workspace as a Pulumi project; see `docs/export.md`. @internal */
export async function runExport(options: ExportOptions, deps: ExportDeps = {}): Promise<ExportResult> {
  const dir = path.resolve(options.out);
  const connection = exportConnection(options.baseUrl, options.env ?? process.env);
  refuseNonEmpty(dir);
  const started = performance.now();
  const { file, leftOut, requests } = await readBuilt(options, connection, deps);
  const memberships = file.integrations.reduce((n, i) => n + i.members.length, 0);
  const given = options.packageSpec?.trim();
  const packageSpec = given ? { spec: given, why: "given with `--package-spec`" } : choosePackageSpec(dir);
  const counts = { users: file.users.length, memberships, integrations: file.integrations.length };
  const shape = chooseShape(counts, options.shape);
  const files = { [ACCESS_FILE]: formatAccessFile(file), ...projectFiles(connection.baseUrl, counts, packageSpec, shape.shape) };
  // Only now, with everything read: a failure before this point leaves nothing behind.
  refuseNonEmpty(dir);
  writeFiles(dir, files);
  return {
    dir,
    files: Object.keys(files).sort(),
    ...counts,
    leftOut,
    requests,
    elapsedMs: performance.now() - started,
    packageSpec,
    shape,
  };
}

/**
 * The workspace read with one client and built as an export writes it, for an export and a check alike: the
 * integrations given (each must exist), else those `recorded` names (they may be gone: their members then left).
 * An address the user gave (not the one `access.yaml` records) is remembered once the workspace answered there, never before:
 * a later `--check` may then use it without being given it again, and a mistyped one is not trusted.
 */
export function readBuilt(options: ExportOptions, connection: Connection, deps: ExportDeps, recorded?: AccessScope) {
  let remembering: Promise<void> | undefined;
  const remember = () => {
    if (connection.recorded !== true) remembering ??= rememberWorkspace(connection.baseUrl, process.env, options.out);
  };
  return withClient(connection, deps, async (client, answered) => {
    let scopeIds = options.integrations === undefined ? recorded?.integrations : undefined;
    try {
      const snapshot = await readWorkspace(client, {
        select: (all) => {
          if (options.integrations === undefined) return scopeIds === undefined ? all : all.filter((i) => scopeIds!.includes(i.id));
          const selected = selectIntegrations(all, options.integrations);
          scopeIds = selected.map((i) => i.id);
          return selected;
        },
        onProgress: options.onProgress,
        onListed: () => {
          answered();
          remember();
        },
      });
      const membersOnly = options.membersOnly ?? recorded?.membersOnly ?? false;
      const built = buildAccessFile(snapshot, { workspace: connection.baseUrl, scopeIds, membersOnly });
      return { ...built, snapshot, scopeIds, requests: client.requestCount };
    } finally {
      // Written by the end of the read, whatever its outcome: the process may exit right after.
      await remembering;
    }
  });
}
