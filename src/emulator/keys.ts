/**
 * API keys and their scopes. Keys are compared exactly and never logged or recorded.
 */
import { randomBytes } from "node:crypto";
import { ALL_SCOPES } from "./scopes";

/** A fresh throwaway key: `wa_emu_` and 32 hex characters. */
export function randomApiKey(): string {
  return `wa_emu_${randomBytes(16).toString("hex")}`;
}

/** The keys the emulator accepts. */
export class KeyRing {
  readonly #keys = new Map<string, ReadonlySet<string>>();

  /** Starts with `defaultKey` holding every scope, plus `extra` keys. */
  constructor(defaultKey: string, extra: Record<string, string[]> = {}) {
    this.#keys.set(defaultKey, new Set(ALL_SCOPES));
    for (const [key, scopes] of Object.entries(extra)) this.add(key, scopes);
  }

  /** Adds or replaces a key. */
  add(key: string, scopes: readonly string[]): void {
    this.#keys.set(key, new Set(scopes));
  }

  /** The scopes of a key, or undefined when the key is unknown. */
  scopes(key: string): ReadonlySet<string> | undefined {
    return this.#keys.get(key);
  }
}
