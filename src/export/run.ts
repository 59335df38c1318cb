/**
 * An export and a check, end to end: settings, the directory (refused before any request when it
 * is not empty), the workspace read with one client, the files written only once everything was
 * read, all of them or none (a failure, while reading or writing, leaves nothing behind), or the
 * comparison with `access.yaml`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  type Clock,
  ConnectionError,
  ForbiddenError,
  type Integration,
  InvalidResponseError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  WorkspaceAccessClient,
} from "../client";
import { type AccessData, type AccessFile, formatAccessFile, parseAccessFile } from "./access-file";
import { buildAccessFile, type LeftOut } from "./build";
import { type AccessChange, compareAccess } from "./check";
import { ExportError, SCOPES_NEEDED } from "./errors";
import { emailKey } from "./names";
import { projectFiles } from "./project";
import { exportConnection, ENV } from "./settings";
import { readWorkspace, selectIntegrations } from "./snapshot";

/** Options of {@link exportWorkspace}. */
export interface ExportOptions {
  /** The directory to write the project to: new or empty (nothing is ever overwritten). */
  out: string;
  /**
   * The workspace's API root, e.g. `https://acme.example.com/api/v1/`. Default: the environment,
   * as the provider reads it (`WORKSPACE_ACCESS_BASE_URL`, or `WORKSPACE_ACCESS_WORKSPACE` and
   * `WORKSPACE_ACCESS_HOST`).
   */
  baseUrl?: string;
  /** Only the memberships of these integrations (ids or labels, exactly). Default: every integration. */
  integrations?: string[];
  /** Only the users with at least one membership in those integrations. */
  membersOnly?: boolean;
  /** Where `WORKSPACE_ACCESS_API_KEY` (the only source of the key) and the address are read. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Called as pages arrive. */
  onProgress?: (progress: ExportProgress) => void;
}

/** Options of {@link checkWorkspace}: `out` is the exported project. Scope options left out are the ones `access.yaml` records. */
export type CheckOptions = ExportOptions;

/** Progress of a read. */
export interface ExportProgress {
  /** Requests sent: list pages (plus any retries). */
  pages: number;
  users: number;
  memberships: number;
  elapsedMs: number;
}

/** What an export wrote. */
export interface ExportResult {
  /** The project directory, absolute. */
  dir: string;
  /** The files written, relative to `dir`, sorted. */
  files: string[];
  users: number;
  integrations: number;
  memberships: number;
  /**
   * The users, memberships and integrations the project could not declare, and why: not declared
   * in `access.yaml`, only recorded under its `leftOut`.
   */
  leftOut: LeftOut[];
  /** Requests sent (list pages, plus any retries). */
  requests: number;
  elapsedMs: number;
}

/** What a check found. */
export interface CheckResult {
  /** Every difference between `access.yaml` and the workspace now; empty when none. */
  changes: AccessChange[];
  /** Records of the workspace now that an export would leave out. */
  leftOut: LeftOut[];
  /** Remarks for the person running it, such as `access.yaml` coming from another workspace. */
  notes: string[];
  requests: number;
  elapsedMs: number;
}

/** Test seams: time and randomness of the client. @internal */
export interface ExportDeps {
  clock?: Clock;
  random?: () => number;
}

const ACCESS_FILE = "access.yaml";

/** Writes the workspace as a Pulumi project; see `docs/export.md`. @internal */
export async function runExport(options: ExportOptions, deps: ExportDeps = {}): Promise<ExportResult> {
  const dir = path.resolve(options.out);
  const connection = exportConnection(options.baseUrl, options.env ?? process.env);
  refuseNonEmpty(dir);
  const started = performance.now();
  return withClient(connection, deps, async (client) => {
    let scopeIds: string[] | undefined;
    const snapshot = await readWorkspace(client, {
      select: (all) => {
        const selected = selectIntegrations(all, options.integrations);
        if (options.integrations !== undefined) scopeIds = selected.map((i) => i.id);
        return selected;
      },
      onProgress: (p) => options.onProgress?.({ ...p, elapsedMs: performance.now() - started }),
    });
    const { file, leftOut } = buildAccessFile(snapshot, {
      workspace: connection.baseUrl,
      scopeIds,
      membersOnly: options.membersOnly === true,
    });
    const memberships = file.integrations.reduce((n, i) => n + i.members.length, 0);
    const files = {
      [ACCESS_FILE]: formatAccessFile(file),
      ...projectFiles(connection.baseUrl, { users: file.users.length, memberships, integrations: file.integrations.length }),
    };
    // Only now, with everything read: a failure before this point leaves nothing behind.
    refuseNonEmpty(dir);
    writeFiles(dir, files);
    return {
      dir,
      files: Object.keys(files).sort(),
      users: file.users.length,
      integrations: file.integrations.length,
      memberships,
      leftOut,
      requests: client.requestCount,
      elapsedMs: performance.now() - started,
    };
  });
}

/** Compares the workspace with an exported project's `access.yaml`; see `docs/export.md`. @internal */
export async function runCheck(options: CheckOptions, deps: ExportDeps = {}): Promise<CheckResult> {
  const dir = path.resolve(options.out);
  const connection = exportConnection(options.baseUrl, options.env ?? process.env);
  const recorded = readRecorded(dir);
  const started = performance.now();
  const notes: string[] = [];
  if (recorded.workspace !== undefined && recorded.workspace !== connection.baseUrl) {
    notes.push(`${ACCESS_FILE} was exported from ${recorded.workspace}; this check reads ${connection.baseUrl}.`);
  }
  const membersOnly = options.membersOnly ?? recorded.scope.membersOnly;
  return withClient(connection, deps, async (client) => {
    let scopeIds = options.integrations === undefined ? recorded.scope.integrations : undefined;
    const snapshot = await readWorkspace(client, {
      select: (all: Integration[]) => {
        // The integrations given now must exist; those access.yaml records may be gone (their members then left).
        if (options.integrations === undefined) return scopeIds === undefined ? all : all.filter((i) => scopeIds!.includes(i.id));
        const selected = selectIntegrations(all, options.integrations);
        scopeIds = selected.map((i) => i.id);
        return selected;
      },
      onProgress: (p) => options.onProgress?.({ ...p, elapsedMs: performance.now() - started }),
    });
    const { file, leftOut } = buildAccessFile(snapshot, { workspace: connection.baseUrl, scopeIds, membersOnly });
    // access.yaml's integrations outside the scope of this check are not compared, nor their records left out.
    const inScope = (id: string | undefined) => id !== undefined && scopeIds!.includes(id);
    const before: AccessFile =
      options.integrations === undefined
        ? recorded
        : {
            ...recorded,
            integrations: recorded.integrations.filter((i) => inScope(i.id)),
            leftOut: recorded.leftOut.filter((l) => l.kind === "user" || inScope(l.kind === "membership" ? l.integration : l.id)),
          };
    return {
      changes: compareAccess(before, file, {
        leftOut,
        workspaceEmails: new Set(snapshot.users.flatMap((u) => (u.email === null ? [] : [emailKey(u.email)]))),
      }),
      leftOut,
      notes,
      requests: client.requestCount,
      elapsedMs: performance.now() - started,
    };
  });
}

/** The project's `access.yaml`, read and checked before any request. */
function readRecorded(dir: string): AccessData {
  const file = path.join(dir, ACCESS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ExportError(
      code === "ENOENT"
        ? `--check needs an exported project: ${file} does not exist. Export first (workspace-access-export --out ${dir}).`
        : `cannot read ${file}: ${code ?? String(error)}`,
    );
  }
  return parseAccessFile(text, file);
}

/** Refuses a directory that exists and is not empty, or is not a directory. */
function refuseNonEmpty(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) throw new ExportError(`${dir} exists and is not a directory: give a new or empty directory to --out.`);
  if (fs.readdirSync(dir).length > 0) {
    throw new ExportError(
      `${dir} is not empty: the export writes a whole project and never overwrites. Give a new or empty directory to --out, or add --check to compare the workspace with the access.yaml there.`,
    );
  }
}

/**
 * Writes the whole project or nothing: a failure part way (a full disk) leaves no file behind, nor
 * a folder it made. A new directory is written as a hidden folder beside it, renamed into place
 * in one step once complete; an existing empty one gets every file under a temporary name first,
 * then each renamed to its own (no file is ever seen half-written).
 */
function writeFiles(dir: string, files: Record<string, string>): void {
  const unique = `${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  if (!fs.existsSync(dir)) {
    const parent = path.dirname(dir);
    // The first folder it made, if any: removed again on failure.
    const made = fs.mkdirSync(parent, { recursive: true });
    const temp = path.join(parent, `.${path.basename(dir)}.${unique}`);
    try {
      fs.mkdirSync(temp);
      for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(temp, name), text, { flag: "wx" });
      // Fails, overwriting nothing, if a non-empty directory appeared there meanwhile.
      fs.renameSync(temp, dir);
    } catch (error) {
      fs.rmSync(made ?? temp, { recursive: true, force: true });
      throw error;
    }
    return;
  }
  const written: string[] = [];
  try {
    const renames: Array<[string, string]> = [];
    for (const [name, text] of Object.entries(files)) {
      const target = path.join(dir, name);
      const partial = `${target}.${unique}`;
      written.push(partial);
      fs.writeFileSync(partial, text, { flag: "wx" });
      renames.push([partial, target]);
    }
    for (const [partial, target] of renames) {
      fs.renameSync(partial, target);
      written.push(target);
    }
  } catch (error) {
    for (const file of written) fs.rmSync(file, { force: true });
    throw error;
  }
}

/** Runs `work` with a client of the connection, closing it after, and adds what to fix to the service's errors. */
async function withClient<T>(
  connection: { apiKey: string; baseUrl: string },
  deps: ExportDeps,
  work: (client: WorkspaceAccessClient) => Promise<T>,
): Promise<T> {
  let client: WorkspaceAccessClient;
  try {
    client = new WorkspaceAccessClient({ ...connection, ...deps });
  } catch (error) {
    // The client names the key's setting `apiKey`: here it is the variable.
    if (error instanceof Error && error.message.startsWith("apiKey ")) throw new ExportError(`${ENV.apiKey}${error.message.slice(6)}`);
    throw error;
  }
  try {
    return await work(client);
  } catch (error) {
    throw withHint(error, connection.baseUrl);
  } finally {
    await client.close();
  }
}

/** The service's error, with the fix for a person running the export. */
function withHint(error: unknown, baseUrl: string): unknown {
  if (!(error instanceof Error)) return error;
  if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
    error.message += ` The export reads users and integrations: its key needs the scopes ${SCOPES_NEEDED}. The key comes from ${ENV.apiKey}.`;
  } else if (
    NotFoundError.isInstance(error) ||
    ConnectionError.isInstance(error) ||
    TimeoutError.isInstance(error) ||
    InvalidResponseError.isInstance(error)
  ) {
    const what =
      NotFoundError.isInstance(error) || InvalidResponseError.isInstance(error)
        ? "answered, but not as the workspace API"
        : "could not be reached";
    error.message += ` Check the address: ${baseUrl} ${what}; it should be the workspace's API root, such as https://acme.example.com/api/v1/ (--base-url, or ${ENV.baseUrl}).`;
  }
  return error;
}
