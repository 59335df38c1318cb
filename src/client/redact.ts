/**
 * Defence in depth: every text sent or received passes here before it is cut, escaped or stored, and every value of an
 * answer once parsed (its escapes decoded): no echo of the key, escaped, in part or in another case, leaks.
 */

import { isDeepStrictEqual } from "node:util";

/** What a text holds where the key was removed. */
export const REDACTED = "[redacted]";

/** The shortest key accepted, and the shortest piece of it removed on its own: a shorter key is a copy-paste accident (`x`, `true`). */
export const MIN_API_KEY_LENGTH = 8;

/**
 * `text` lower-cased character by character, each keeping its length, so that an index into the result is one into `text`:
 * the key is matched in any case (the client lower-cases ids where they enter, `ids.ts`; a gateway may fold what it echoes).
 */
function fold(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  // A character whose lower case is longer (`İ`) stays as it is.
  return Array.from(text, (c) => {
    const l = c.toLowerCase();
    return l.length === c.length ? l : c;
  }).join("");
}

/** `text` with every occurrence of the key in any case (`target`: the key {@link fold}ed) as `[redacted]`. */
function removeAnyCase(text: string, target: string): string {
  const folded = fold(text);
  let at = folded.indexOf(target);
  if (at < 0) return text;
  let out = "";
  let plainFrom = 0;
  for (; at >= 0; at = folded.indexOf(target, plainFrom)) {
    out += text.slice(plainFrom, at) + REDACTED;
    plainFrom = at + target.length;
  }
  return out + text.slice(plainFrom);
}

/**
 * A function removing every run of `min` or more consecutive characters of `secret`, in any case ({@link fold}), from a text, longest
 * first. In any case, a run of 8 of a random key still matches a text by chance about once in 36^8 (UUIDs and ids stay).
 */
function runsRemover(secret: string, min: number): (text: string) => string {
  if (secret.length < min) return (text) => text;
  // The key folded and its runs of `min`, once per redactor: it runs on every text the package prints or stores.
  const key = fold(secret);
  const grams = new Set<string>();
  for (let i = 0; i + min <= key.length; i++) grams.add(key.slice(i, i + min));
  return (text) => (text.length < min ? text : removeRuns(text, key, grams, min));
}

/** {@link runsRemover}'s work on one text: `key` is the key folded, `grams` its runs of `min`. */
function removeRuns(text: string, key: string, grams: ReadonlySet<string>, min: number): string {
  const folded = fold(text);
  let out = "";
  let i = 0;
  let plainFrom = 0;
  while (i + min <= text.length) {
    if (!grams.has(folded.slice(i, i + min))) {
      i++;
      continue;
    }
    let end = i + min;
    while (end < text.length && key.includes(folded.slice(i, end + 1))) end++;
    out += text.slice(plainFrom, i) + REDACTED;
    i = end;
    plainFrom = end;
  }
  return out + text.slice(plainFrom);
}

/**
 * The forms the whole key takes in a text: as is, inside a JSON string (non-ASCII escaped or not), URL-encoded, encoded
 * ({@link encodedForms}); longest first.
 */
function keyForms(secret: string): string[] {
  const url = urlForm(secret);
  // Inside a JSON string, and that with every non-ASCII character escaped too, as some serializers write them.
  const json = JSON.stringify(secret).slice(1, -1);
  const ascii = json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // Longest first, so a longer form is not left half-replaced by a shorter one.
  return [...new Set([secret, json, ascii, url, lowerHex(url), ...encodedForms(secret)])].sort((a, b) => b.length - a.length);
}

/**
 * The key's bytes (UTF-8, and the Latin-1 a header carries) as a gateway may echo them: base64 in either alphabet, as
 * HTTP Basic credentials or a token it minted hold them, and hex in either case. Inside a longer base64 text the key
 * starts at one of three alignments, each spelling it differently: each form is cut to the characters the key alone
 * decides, so it is found whatever surrounds the key. Forms of the whole key only: a piece of one decodes to no text.
 */
function encodedForms(secret: string): string[] {
  const encodings = [Buffer.from(secret, "utf8")];
  if ([...secret].every((c) => c.codePointAt(0)! <= 0xff)) encodings.push(Buffer.from(secret, "latin1"));
  return encodings.flatMap((bytes) => {
    // The key encoded alone, padding included, goes whole; inside a longer text, the characters below.
    const forms = [bytes.toString("hex"), bytes.toString("hex").toUpperCase(), bytes.toString("base64"), bytes.toString("base64url")];
    for (let offset = 0; offset < 3; offset++) {
      const base64 = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
      // A base64 character spells 6 bits: those wholly within the key's bytes, which start after `offset` others.
      const inner = base64.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
      forms.push(inner, inner.replaceAll("+", "-").replaceAll("/", "_"));
    }
    return forms;
  });
}

/** The key URL-encoded (upper-case hex, as `encodeURIComponent` writes it); the key itself where it cannot be. */
function urlForm(secret: string): string {
  try {
    return encodeURIComponent(secret);
  } catch {
    return secret;
  }
}

/** A URL-encoded text with its escapes' hex in lower case, as some encoders write them. */
const lowerHex = (url: string) => url.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase());

/**
 * Whether a response body may hold the whole key once parsed: it holds the key in any case, URL-encoded or encoded, or any escape (a
 * JSON string's escapes, `\/`, `\u0077` or `\u00F1` in any case, can spell the key out of sight of a plain search). A test
 * cheap enough for every answer's body: the bodies it passes are redacted value by value ({@link makeValueRedactor}).
 */
export function makeEchoTest(secret: string): (text: string) => boolean {
  if (secret === "") return () => false;
  const url = urlForm(secret);
  const forms = [...new Set([url, lowerHex(url), ...encodedForms(secret)])];
  const key = fold(secret);
  return (text) => text.includes("\\") || forms.some((form) => text.includes(form)) || fold(text).includes(key);
}

/**
 * A function removing the whole key, in any of its forms, from a value already parsed from JSON (every escape decoded), the
 * key itself in any case too ({@link fold}; base64 keeps its case, a folded base64 text spells other bytes): a record that
 * echoes the key holds `[redacted]` there, and nothing else of it or of any other record changes.
 */
export function makeValueRedactor(secret: string): (value: string) => string {
  if (secret === "") return (value) => value;
  const forms = keyForms(secret);
  const target = fold(secret);
  return (value) => {
    let out = value;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return removeAnyCase(out, target);
  };
}

/**
 * A function removing `secret` from any text (see the module's comment): the whole key in its forms, then every run of it, in
 * any case. A key shorter than {@link MIN_API_KEY_LENGTH} is never sent (settings refuse it), so no answer can echo it: nothing
 * is removed, where `x` or `key` removed would leave the very message naming the problem unreadable (`API [redacted]`).
 */
export function makeRedactor(secret: string): (text: string) => string {
  if (secret.length < MIN_API_KEY_LENGTH) return (text) => text;
  const whole = makeValueRedactor(secret);
  const runs = runsRemover(secret, MIN_API_KEY_LENGTH);
  return (text) => runs(whole(String(text)));
}

/** A copy of a parsed JSON value with `redact` applied to every string, keys included: for what was parsed before it could be redacted as text. */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactDeep(v, redact)]));
  }
  return value;
}

/**
 * `error` itself, with `redact` applied to its message, stack, every string field and its cause: no field can carry the key. A
 * field that cannot be redefined nor written (zod's `_zod`, a frozen error's) is left as it is: the error stays the one thrown,
 * not a `TypeError` of the redaction (what the engine shows of it is its message and stack). Should such a field hold what the
 * redaction removes (a frozen error's message with the key), a copy is returned instead, of the error's class, every field
 * redacted: the key never passes for the error's sake.
 */
export function redactError<E>(error: E, redact: (text: string) => string, seen = new Set<unknown>()): E {
  if (typeof error !== "object" || error === null || seen.has(error)) return error;
  seen.add(error);
  const target = error as Record<string, unknown>;
  const fields = new Map<string, unknown>();
  let stuck = false;
  for (const key of [...Object.getOwnPropertyNames(error), "message", "stack"]) {
    const value = target[key];
    let redacted: unknown;
    if (typeof value === "string") redacted = redact(value);
    else if (key === "cause" || value instanceof Error) redacted = redactError(value, redact, seen);
    else if (value !== null && typeof value === "object" && key !== "stack") redacted = redactDeep(value, redact);
    else continue;
    fields.set(key, redacted);
    if (!replaceField(target, key, redacted) && changes(value, redacted)) stuck = true;
  }
  if (!stuck) return error;
  // Symbol-keyed fields too: the package's errors are told by a symbol (`isInstance`).
  const copy = Object.create(Object.getPrototypeOf(error)) as Record<PropertyKey, unknown>;
  for (const key of Reflect.ownKeys(error)) {
    const enumerable = Object.getOwnPropertyDescriptor(error, key)?.enumerable ?? false;
    const value = typeof key === "string" && fields.has(key) ? fields.get(key) : (error as Record<PropertyKey, unknown>)[key];
    Object.defineProperty(copy, key, { value, writable: true, configurable: true, enumerable });
  }
  for (const key of ["message", "stack"]) if (fields.has(key) && !Object.hasOwn(copy, key)) replaceField(copy, key, fields.get(key));
  return copy as E;
}

/** Whether `redacted` (what {@link redactError} made of `value`) differs from it: a field left as it was would keep that. */
function changes(value: unknown, redacted: unknown): boolean {
  if (typeof value === "string" || value instanceof Error || value === redacted) return value !== redacted;
  // A copy of an object ({@link redactDeep}): whether it differs from the same copy unredacted.
  return !isDeepStrictEqual(
    redactDeep(value, (text) => text),
    redacted,
  );
}

/** Sets `target[key]` to `value` when the field can be redefined or written; false when it cannot (nothing changed). */
function replaceField(target: Record<string, unknown>, key: string, value: unknown): boolean {
  if (target[key] === value) return true;
  const own = Object.getOwnPropertyDescriptor(target, key);
  if (!own || own.configurable) {
    if (!Object.isExtensible(target) && !own) return false;
    Object.defineProperty(target, key, { value, writable: true, configurable: true });
    return true;
  }
  if (!own.writable || !("value" in own)) return false;
  target[key] = value;
  return true;
}
