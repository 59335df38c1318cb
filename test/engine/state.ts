/**
 * The stack's state between operations: a small JSON file per stack, like a Pulumi checkpoint.
 *
 * Resources are kept in creation order, which is also dependency order (a resource registers only
 * after the resources it depends on have answered). Secrets are encrypted on disk the way Pulumi's
 * checkpoints do it (`{ [sigKey]: secretSig, ciphertext }`), so a grep of the file for a secret finds
 * it only where the state really holds it in plain text.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { isObject, type Json, type PropertyMap, secretSig, specialSigKey } from "./properties.ts";

/** One resource as the engine remembers it. */
export interface ResourceState {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  /** The provider's id; empty for components. */
  id: string;
  /** The checked inputs (secrets wrapped), `__provider` included for dynamic resources. */
  inputs: PropertyMap;
  /** The provider's outputs (secrets wrapped), `__provider` included. */
  outputs: PropertyMap;
  parent: string;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** Read with `get`, not managed: never deleted through the provider. */
  external: boolean;
  retainOnDelete: boolean;
  protect: boolean;
  /** The old copy of a replaced resource whose delete has not happened yet (retried by the next `up`). */
  pendingDelete: boolean;
  /** Reasons of a partial create/update (`ErrorResourceInitFailed`). */
  initErrors: string[];
}

/** The whole stack. */
export interface StackState {
  version: 1;
  project: string;
  stack: string;
  /** The stack outputs of the last `up` (wire form: secrets wrapped). */
  outputs: PropertyMap;
  resources: ResourceState[];
}

interface StateFile {
  version: 1;
  project: string;
  stack: string;
  secrets: { type: "passphrase"; salt: string };
  outputs: PropertyMap;
  resources: ResourceState[];
}

/** An empty stack. */
export function emptyState(project: string, stack: string): StackState {
  return { version: 1, project, stack, outputs: {}, resources: [] };
}

function keyOf(passphrase: string, salt: string): Buffer {
  return createHash("sha256").update(`${salt}:${passphrase}`).digest();
}

function mapSecrets(value: Json, transform: (secret: { [key: string]: Json }) => Json): Json {
  if (Array.isArray(value)) return value.map((item) => mapSecrets(item, transform));
  if (!isObject(value)) return value;
  if (value[specialSigKey] === secretSig) return transform(value);
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) out[k] = mapSecrets(v, transform);
  return out;
}

function mapResourceSecrets(
  state: { outputs: PropertyMap; resources: ResourceState[] },
  transform: (secret: { [key: string]: Json }) => Json,
) {
  const map = (props: PropertyMap): PropertyMap => mapSecrets(props, transform) as PropertyMap;
  return {
    outputs: map(state.outputs),
    resources: state.resources.map((r) => ({ ...r, inputs: map(r.inputs), outputs: map(r.outputs) })),
  };
}

/** Reads a state file; `undefined` when there is none yet. */
export function loadState(file: string, passphrase: string): StackState | undefined {
  if (!fs.existsSync(file)) return undefined;
  const raw = JSON.parse(fs.readFileSync(file, "utf8")) as StateFile;
  const key = keyOf(passphrase, raw.secrets.salt);
  const decrypted = mapResourceSecrets(raw, (secret) => {
    const blob = Buffer.from(String(secret["ciphertext"] ?? ""), "base64");
    const decipher = createDecipheriv("aes-256-gcm", key, blob.subarray(0, 12));
    decipher.setAuthTag(blob.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(blob.subarray(28)), decipher.final()]).toString("utf8");
    return { [specialSigKey]: secretSig, value: JSON.parse(plain) as Json };
  });
  return { version: 1, project: raw.project, stack: raw.stack, ...decrypted };
}

/** Writes a state file atomically, secrets encrypted. */
export function saveState(file: string, state: StackState, passphrase: string): void {
  let salt = randomBytes(8).toString("base64");
  if (fs.existsSync(file)) {
    salt = (JSON.parse(fs.readFileSync(file, "utf8")) as StateFile).secrets.salt;
  }
  const key = keyOf(passphrase, salt);
  const encrypted = mapResourceSecrets(state, (secret) => {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(secret["value"] ?? null), "utf8"), cipher.final()]);
    const ciphertext = Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64");
    return { [specialSigKey]: secretSig, ciphertext };
  });
  const out: StateFile = {
    version: 1,
    project: state.project,
    stack: state.stack,
    secrets: { type: "passphrase", salt },
    ...encrypted,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(out, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/** The URNs `resource` depends on: explicit dependencies, property dependencies and its parent. */
export function dependenciesOf(resource: ResourceState): string[] {
  const all = new Set(resource.dependencies);
  for (const urns of Object.values(resource.propertyDependencies)) for (const urn of urns) all.add(urn);
  if (resource.parent) all.add(resource.parent);
  return [...all];
}

/**
 * The order to delete `resources` in: every resource before the ones it depends on, and otherwise
 * the reverse of their order in the list (creation order).
 */
export function deletionOrder(resources: ResourceState[]): ResourceState[] {
  const urns = new Set(resources.map((r) => r.urn));
  const dependents = new Map<string, number>();
  for (const r of resources) {
    for (const dep of dependenciesOf(r)) {
      if (dep !== r.urn && urns.has(dep)) dependents.set(dep, (dependents.get(dep) ?? 0) + 1);
    }
  }
  const pending = [...resources].reverse();
  const ordered: ResourceState[] = [];
  while (pending.length > 0) {
    let index = pending.findIndex((r) => (dependents.get(r.urn) ?? 0) === 0);
    // A cycle cannot come from the SDK; fall back to plain reverse order rather than loop.
    if (index < 0) index = 0;
    const [next] = pending.splice(index, 1);
    if (!next) break;
    ordered.push(next);
    for (const dep of dependenciesOf(next)) {
      if (dep !== next.urn && dependents.has(dep)) dependents.set(dep, (dependents.get(dep) ?? 1) - 1);
    }
  }
  return ordered;
}
