/**
 * How a message printed where Pulumi shows it (a lookup's failure, a provider's warning or error) leaves out values given as
 * secrets, and the API key in force.
 */
import { makeRedactor } from "../client/redact";
import type { RawSettings } from "./settings";

/** What a message prints for a secret value, as Pulumi prints a secret. */
export const SECRET = "[secret]";

/**
 * A text with each of `secrets` as `[secret]`, in any case (emails compare so: a record's email may be the secret in another
 * case), trimmed or not, and in the forms a message may quote it (inside a JSON string, URL-encoded in a path).
 */
export function hiderOf(secrets: Iterable<string>): (text: string) => string {
  const forms = [...secrets].flatMap((s) => [s, s.trim(), JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]).filter((f) => f !== "");
  if (forms.length === 0) return (text) => text;
  const longestFirst = [...new Set(forms)].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(longestFirst.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
  return (text) => text.replace(pattern, SECRET);
}

/** A text as it is: what {@link hiderIf} gives where nothing is secret (compare with it to skip work). */
export const shown = (text: string): string => text;

/**
 * How a resource prints its messages: with each string of `values` as `[secret]` ({@link hiderOf}) when the program gave them as
 * secrets (`secret`: a resource's hidden flag); {@link shown} otherwise.
 */
export function hiderIf(secret: boolean, values: Iterable<unknown>): (text: string) => string {
  return secret ? hiderOf([...values].filter((v): v is string => typeof v === "string")) : shown;
}

/**
 * `text` without the key in force (`raw`'s), whole, in its forms or in any run of 8 of its characters, in any case (`client/redact.ts`): the
 * last step of what the package tells Pulumi, the provider's every message and the lookups' and `getJob`'s errors alike. Their
 * messages quote the service's texts (a job's id, a record's label), which a gateway may make of the key; a key too short to be
 * sent is not removed (`makeRedactor`).
 */
export function keyRedactorOf(raw: RawSettings): (text: string) => string {
  const key = raw.apiKey?.trim();
  return key ? makeRedactor(key) : shown;
}
