/**
 * The command line of `workspace-access-emulator`, parsed into the options of `startEmulator`
 * (apart from the command itself so that it can be tested without starting a process).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_FINISH_AFTER_POLLS } from "./jobs";
import { parseQuirk } from "./quirks";
import { defaultSeed, parseSeed } from "./seed";
import type { AnsweredRequest, BatchInviteFailure, EmulatorQuirks, EmulatorSeed, JobTiming, MissingScopeStatus, RateLimit } from "./types";
import { populatedSeed } from "./worlds";

export const USAGE = `Usage: workspace-access-emulator [options]

Runs an in-memory emulator of the workspace access API until interrupted.

Options:
  --port N        port to listen on (default 0: an ephemeral port)
  --host H        address to listen on (default 127.0.0.1)
  --seed FILE     start with the users and integrations of a JSON file instead of the default
                  world (4 users, YouTube and Slack); see examples/emulator-seed.json
  --world NAME    start from a built-in world instead: "populated" (512 users of every kind,
                  three integrations, one with 300 members) or "adversarial" (the populated
                  world plus another admin's records, with every quirk below on but
                  openUserRoles, integrationWriteAnswer, jobProgress, memberEntitlements,
                  lowerCaseEmails, userFilter, unknownEntitlement, errorStatus, absentFields,
                  nonMemberWrite, userCreateTaken, userReplaceId, unknownQuery, clockSkew,
                  memberListPath, memberRole: unlisted roles stay refused and integration
                  writes answer a job, the harder answers; the last fourteen are played on
                  their own)
  --quirk N=V     turn on (or, with the adversarial world, off) a behaviour the contract allows;
                  repeatable: shiftPages=remove|insert|false, repeatRecords=true|false,
                  inviteExisting=conflict|merge|fail, upperCaseIds=true|false,
                  noContent=true|false, nullFields=true|false, openUserRoles=true|false,
                  integrationWriteAnswer=job|no-content|empty-ok|no-data,
                  jobProgress=running|varied, memberEntitlements=records|ids|left-out,
                  lowerCaseEmails=true|false, userFilter=contains|exact|case-sensitive,
                  unknownEntitlement=job-error|bad-request|not-found, errorStatus=number|string,
                  absentFields=true|false, nonMemberWrite=not-found|job-error,
                  userCreateTaken=conflict|bad-request|existing, userReplaceId=accept|refuse,
                  unknownQuery=ignore|refuse,
                  clockSkew=<seconds> (the service's clock that far ahead of the emulator's, in
                  Date and the times it records; negative: behind),
                  memberListPath=both|singular (singular: an integration's member list and
                  invitation at /integrations/{id}/user alone, /users answering 404),
                  memberRole=short|account|left-out (a member's role as owner, as account_owner,
                  or left out of the record)
  --empty         start with no users and no integrations
  --job-polls N   a job ends on its N-th read (GET /jobs/{id}); earlier reads see it running
                  (default 2; 0: done before the write answers)
  --job-settle S  a job its reads have not ended ends by itself S seconds after it started, as
                  the service's jobs do when nobody reads them (default 30; 0: only reads end it)
  --job-readable-after S
                  a job answers 404 to its reads (GET /jobs/{id}) until S seconds after it started,
                  as a service whose job store lags its writes (default 0: readable at once);
                  those reads are not counted by --job-polls
  --scopes T      the scopes each operation needs: "document" (default: as the public document
                  describes each operation) or "contract" (the contract's summary table: the
                  entitlement catalogue needs read:integrations, an invitation write:automations)
  --user-writes W how user writes (POST, PUT, DELETE /users) answer: "record" (default: 201/200
                  with the user, 204 for a delete), "no-content" (204 without a body for each)
                  or "job" (a job, the change made when it finishes)
  --no-user-create
                  answer POST /users 405, as a service without that (assumed) endpoint would
  --missing-scope S
                  what a key lacking a scope gets: 403 (default), 401, or 404 ("not disclosed",
                  naming no scope, on a collection as on one record); the service may answer
                  any of them
  --batch-invite-failure M
                  what a failing invitation job does with the other users it names: "whole"
                  (default: none is added) or "partial" (the others are added)
  --rate-limit N/S
                  answer 429 to a key's requests beyond N in any S seconds (default: no limit;
                  the service publishes no quota)
  --retry-after F how a 429 says when to retry: "seconds" (default), "date" (an HTTP date) or
                  "none" (no Retry-After header: a client then waits five minutes)
  --api-key K     the API key to accept (default: a random wa_emu_... key)
  --log-requests  print one line per request answered: method, path, status, milliseconds
                  (never the key)
  -h, --help      show this help

Docs, in this package (node_modules/pulumi-workspace-access/ once installed):
  docs/emulator.md             each world, and changing access by HTTP with curl
  docs/reliability.md          the adversarial world and each quirk
  examples/emulator-seed.json  a seed file with every field
`;

/** What the command starts. */
export interface CommandLine {
  port: number;
  host: string;
  seed?: EmulatorSeed;
  world?: "adversarial";
  quirks: EmulatorQuirks;
  /** `--scopes`: which scope table the emulator enforces. */
  scopeTable: "document" | "contract";
  /** `--user-writes record` (absent: the default), `no-content` or `job`. */
  userWriteAnswer?: "no-content";
  userWritesAsJobs?: boolean;
  /** `--no-user-create`: `POST /users` answers 405. */
  userCreate?: false;
  /** `--missing-scope`: what a key lacking a scope gets. */
  missingScopeStatus?: MissingScopeStatus;
  /** `--batch-invite-failure`: what a failing invitation job does with the other users it names. */
  batchInviteFailure?: BatchInviteFailure;
  /** `--rate-limit` and `--retry-after`. */
  rateLimit?: RateLimit;
  /** `--job-polls`, `--job-settle` and `--job-readable-after`: how jobs end, and when their reads find them. */
  job: JobTiming;
  apiKey?: string;
  /** `--log-requests`: print {@link requestLogLine} for each request. */
  logRequests: boolean;
}

/**
 * One line of `--log-requests`: `GET /api/v1/users?filter=ann 200 3 ms` (`reset` for a socket
 * reset instead of an answer). The key travels in a header, never printed; one pasted into a URL is
 * replaced too, as is or URL-encoded ({@link urlSpellings}).
 */
export function requestLogLine(answer: AnsweredRequest, apiKey: string): string {
  const line = `${answer.method} ${answer.rawPath} ${answer.status === 0 ? "reset" : answer.status} ${Math.round(answer.ms)} ms`;
  return apiKey === "" ? line : line.replace(urlSpellings(apiKey), "[key]");
}

/**
 * Every way a URL may spell `key`: each character as is or percent-encoded (its UTF-8 bytes, hex in either case), a space
 * also `+` (a form's encoding), so a key encoded whole, in part (`encodeURI` leaves `/` and `+`) or by a form is matched.
 * The emulator imports nothing of the client: its redactor's other forms (base64, hex, runs of the key) are the client's.
 */
function urlSpellings(key: string): RegExp {
  const hex = (byte: number) => [...byte.toString(16).padStart(2, "0")].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d));
  const spellings = [...key].map((c) => {
    const escaped = [...new TextEncoder().encode(c)].map((byte) => `%${hex(byte).join("")}`).join("");
    return `(?:${c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|${escaped}${c === " " ? "|\\+" : ""})`;
  });
  return new RegExp(spellings.join(""), "g");
}

/** The command's default `--job-settle`, in seconds: long enough for any client that polls, short enough for a `curl`. */
export const DEFAULT_JOB_SETTLE_SECONDS = 30;

/** A flag's value as a number of at least 0 (`integer`: a whole one), or the default when absent; throws naming the flag. */
function count(flag: string, text: string | undefined, fallback: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const value = text.trim() === "" ? Number.NaN : Number(text);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${flag} must be ${integer ? "a whole number" : "a number of seconds"}, 0 or more, got "${text}"`);
  }
  return value;
}

/** A seed file, checked field by field; errors name the file and the field. */
function readSeed(file: string): EmulatorSeed {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read the seed file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return parseSeed(JSON.parse(text));
  } catch (error) {
    throw new Error(`the seed file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A flag's value among `allowed`, or undefined when absent; throws naming the flag and the values. */
function oneOf<T extends string>(flag: string, text: string | undefined, allowed: readonly T[]): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw new Error(`${flag} must be ${allowed.map((a) => `"${a}"`).join(", ")}, got ${text}`);
  return text as T;
}

/** `--rate-limit N/S` (whole N of at least 1, S seconds above 0) with `--retry-after`; throws naming the flag. */
function rateLimitOf(text: string | undefined, retryAfter: RateLimit["retryAfter"]): RateLimit | undefined {
  if (text === undefined) {
    if (retryAfter !== undefined) throw new Error("--retry-after needs --rate-limit");
    return undefined;
  }
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (match === null || requests < 1 || !(seconds > 0)) {
    throw new Error(`--rate-limit must be N/S, at most N requests (1 or more) in any S seconds (more than 0), got "${text}"`);
  }
  return { requests, windowMs: seconds * 1000, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/** Parses the command line; `help` when it asks for the usage; throws on bad input. */
export function parseCommandLine(argv: string[]): CommandLine | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      seed: { type: "string" },
      world: { type: "string" },
      quirk: { type: "string", multiple: true },
      empty: { type: "boolean" },
      "job-polls": { type: "string" },
      "job-settle": { type: "string" },
      "job-readable-after": { type: "string" },
      scopes: { type: "string" },
      "user-writes": { type: "string" },
      "no-user-create": { type: "boolean" },
      "missing-scope": { type: "string" },
      "batch-invite-failure": { type: "string" },
      "rate-limit": { type: "string" },
      "retry-after": { type: "string" },
      "api-key": { type: "string" },
      "log-requests": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) return "help";
  const port = Number(values.port ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got ${values.port}`);
  if ([values.seed !== undefined, values.world !== undefined, values.empty === true].filter(Boolean).length > 1) {
    throw new Error("--seed, --world and --empty cannot be used together");
  }
  if (values.world !== undefined && values.world !== "populated" && values.world !== "adversarial") {
    throw new Error(`--world must be "populated" or "adversarial", got ${values.world}`);
  }
  const settleSeconds = count("--job-settle", values["job-settle"], DEFAULT_JOB_SETTLE_SECONDS, false);
  const job: JobTiming = { finishAfterPolls: count("--job-polls", values["job-polls"], DEFAULT_FINISH_AFTER_POLLS, true) };
  if (settleSeconds > 0) job.settleAfterMs = settleSeconds * 1000;
  const readableSeconds = count("--job-readable-after", values["job-readable-after"], 0, false);
  if (readableSeconds > 0) job.readableAfterMs = readableSeconds * 1000;
  const scopeTable = values.scopes ?? "document";
  if (scopeTable !== "document" && scopeTable !== "contract")
    throw new Error(`--scopes must be "document" or "contract", got ${scopeTable}`);
  const writes = oneOf("--user-writes", values["user-writes"], ["record", "no-content", "job"] as const);
  const missingScope = oneOf("--missing-scope", values["missing-scope"], ["403", "401", "404"] as const);
  const batch = oneOf("--batch-invite-failure", values["batch-invite-failure"], ["whole", "partial"] as const);
  const retryAfter = oneOf("--retry-after", values["retry-after"], ["seconds", "date", "none"] as const);
  const rateLimit = rateLimitOf(values["rate-limit"], retryAfter);
  const switches: Partial<CommandLine> = {
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(writes === "no-content" ? { userWriteAnswer: "no-content" } : writes === "job" ? { userWritesAsJobs: true } : {}),
    ...(values["no-user-create"] === true ? { userCreate: false } : {}),
    ...(missingScope === undefined ? {} : { missingScopeStatus: Number(missingScope) as MissingScopeStatus }),
    ...(batch === undefined ? {} : { batchInviteFailure: batch }),
  };
  const quirks: EmulatorQuirks = {};
  for (const quirk of values.quirk ?? []) Object.assign(quirks, parseQuirk(quirk));
  const host = values.host ?? "127.0.0.1";
  const logRequests = values["log-requests"] === true;
  const common: Omit<CommandLine, "seed" | "world"> = {
    ...{ port, host, quirks, job, scopeTable, apiKey: values["api-key"], logRequests },
    ...switches,
  };
  if (values.world === "adversarial") return { ...common, world: "adversarial" };
  const seed =
    values.empty === true
      ? {}
      : values.world === "populated"
        ? populatedSeed()
        : values.seed === undefined
          ? defaultSeed()
          : readSeed(values.seed);
  return { ...common, seed };
}
