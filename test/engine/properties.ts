/**
 * Property values as they cross the engine's wires: plain JSON where secrets, unknowns and resource
 * references are encoded with Pulumi's signature keys (see `@pulumi/pulumi/runtime/rpc.js`).
 *
 * The engine keeps secrets as `{ [sigKey]: secretSig, value }` in state and in what it hands back to
 * the program, but the dynamic-provider host answers `Configure` with `acceptSecrets: false`, so the
 * engine strips them before every provider call and re-applies them afterwards (`annotateSecrets`).
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A resource's inputs or outputs. */
export type PropertyMap = { [key: string]: Json };

/** The placeholder for a value not known yet (during a preview): `rpc.unknownValue`. */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The key that marks a special value (secret, resource reference, asset): `rpc.specialSigKey`. */
export const specialSigKey = "4dabf18193072939515e22adb298388d";
/** The signature of a secret: `rpc.specialSecretSig`. */
export const secretSig = "1b47061264138c4ac30d75fd1eb44270";
/** The signature of a resource reference: `rpc.specialResourceSig`. */
export const resourceSig = "5cf8f73096256a8f31e491e813e4eb8e";

/** A JSON object (not an array, not null). */
export function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is a wrapped secret. */
export function isSecret(value: Json | undefined): value is { [key: string]: Json } {
  return isObject(value) && value[specialSigKey] === secretSig;
}

/** Wraps `value` as a Pulumi secret (idempotent). */
export function makeSecret(value: Json): Json {
  return isSecret(value) ? value : { [specialSigKey]: secretSig, value };
}

/** The value inside a secret, or `value` itself. */
export function unwrapSecret(value: Json): Json {
  return isSecret(value) ? (value["value"] ?? null) : value;
}

/** Whether `value` is or contains a secret. */
export function containsSecrets(value: Json | undefined): boolean {
  if (isSecret(value)) return true;
  if (Array.isArray(value)) return value.some(containsSecrets);
  if (isObject(value)) return Object.values(value).some(containsSecrets);
  return false;
}

/** Whether `value` is or contains the unknown placeholder. */
export function containsUnknowns(value: Json | undefined): boolean {
  if (value === unknownValue) return true;
  if (Array.isArray(value)) return value.some(containsUnknowns);
  if (isObject(value)) return Object.values(value).some(containsUnknowns);
  return false;
}

/**
 * What the engine sends to a provider that accepts neither secrets nor resource references (the
 * dynamic-provider host): secrets unwrapped, references replaced by their id (or URN when they have
 * none). Unknown placeholders pass through untouched.
 */
export function toProviderWire(value: Json): Json {
  if (Array.isArray(value)) return value.map(toProviderWire);
  if (!isObject(value)) return value;
  if (value[specialSigKey] === secretSig) return toProviderWire(value["value"] ?? null);
  if (value[specialSigKey] === resourceSig) {
    const id = value["id"];
    return typeof id === "string" && id !== "" ? id : (value["urn"] ?? null);
  }
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) out[k] = toProviderWire(v);
  return out;
}

/** {@link toProviderWire} for a whole property map. */
export function toProviderMap(props: PropertyMap): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(props)) out[k] = toProviderWire(v);
  return out;
}

/**
 * The engine's `annotateSecrets` (provider_plugin.go): for every key present in both maps, if both
 * values are objects recurse, otherwise if the input contains a secret mark the output secret.
 * Returns a new map.
 */
export function annotateSecrets(outs: PropertyMap, ins: PropertyMap): PropertyMap {
  const result: PropertyMap = { ...outs };
  for (const [key, inValue] of Object.entries(ins)) {
    if (!(key in result)) continue;
    const outValue = result[key] as Json;
    if (isObject(outValue) && !isSecret(outValue) && isObject(inValue) && !isSecret(inValue)) {
      result[key] = annotateSecrets(outValue, inValue);
    } else if (!isSecret(outValue) && containsSecrets(inValue)) {
      result[key] = makeSecret(outValue);
    }
  }
  return result;
}

/** Deep equality of two JSON values (object key order ignored). */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ak = Object.keys(a);
    if (ak.length !== Object.keys(b).length) return false;
    return ak.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Whether `text` occurs anywhere in the JSON form of `value` (for secret-leak assertions). */
export function jsonContains(value: unknown, text: string): boolean {
  return JSON.stringify(value ?? null).includes(text);
}
