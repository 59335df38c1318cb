/** A request as the emulator's server receives it: recorded in the log, its path and key read, its body parsed. */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ServerParts } from "./server";
import type { RecordedRequest } from "./types";

/** Every route lives under this prefix. */
export const API_PREFIX = "/api/v1";

/** Bodies above this size answer 413: nothing in the API comes close. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request received: its log record, and what the pipeline reads of it. */
export interface Incoming {
  record: RecordedRequest;
  /** The body handlers see, when it differs from the recorded one (ids in lower case). */
  body?: unknown;
  method: string;
  /** Still encoded, after the prefix; undefined when the path is outside the API. */
  apiPath: string | undefined;
  query: URLSearchParams;
  apiKey: string | undefined;
  /** The `Content-Type` header as sent, if any. */
  contentType: string | undefined;
  /** Whether a body was sent (anything but whitespace). */
  hasBody: boolean;
  invalidJson: boolean;
  tooLarge: boolean;
}

/** Records the request and reads its body. */
export async function receive(req: IncomingMessage, parts: Pick<ServerParts, "clock" | "log">): Promise<Incoming> {
  const rawPath = req.url ?? "/";
  const url = new URL(rawPath, "http://emulator.invalid");
  const apiPath = apiPathOf(url.pathname);
  const header = req.headers["x-api-key"];
  const apiKey = (Array.isArray(header) ? header[0] : header) || undefined;
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
  const record: RecordedRequest = {
    method: req.method ?? "GET",
    path: decodePath(apiPath ?? url.pathname),
    rawPath,
    query,
    body: undefined,
    status: 0,
    hasApiKey: apiKey !== undefined,
    at: parts.clock.now(),
    requestId: randomUUID(),
  };
  parts.log.entries.push(record);
  parts.log.requests += 1;

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= MAX_BODY_BYTES) chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  let invalidJson = false;
  const hasBody = text.trim() !== "";
  if (hasBody) {
    try {
      record.body = JSON.parse(text);
    } catch {
      record.body = text;
      invalidJson = true;
    }
  }
  const contentType = req.headers["content-type"];
  const tooLarge = size > MAX_BODY_BYTES;
  return { record, method: record.method, apiPath, query: url.searchParams, apiKey, contentType, hasBody, invalidJson, tooLarge };
}

/** The still-encoded path after `/api/v1`, trailing slash dropped; undefined outside the API. */
function apiPathOf(pathname: string): string | undefined {
  if (pathname !== API_PREFIX && !pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const rest = pathname.slice(API_PREFIX.length);
  const trimmed = rest.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
