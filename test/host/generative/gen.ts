/**
 * The generative suite's deterministic randomness: a seeded generator (mulberry32), the variants of one value that the
 * package promises to treat as the same (an email or an id in any case, a set in any order with repeats), and `forCases`,
 * which runs a property over many generated cases and names the seed and the case of the first that fails.
 *
 * The seed is fixed (`SEED`) so that every run checks the same cases; `WA_GEN_SEED=<n>` runs others, and a failure prints
 * the seed and the case's index to run it again alone (`WA_GEN_CASE=<i>`).
 */
import { expect } from "vitest";
import type { Props } from "../../../src/shared/inputs";
import { UNKNOWN } from "../../../src/shared/unknown";
import { mulberry32 } from "../../support/mulberry32";

export const SEED = Number(process.env["WA_GEN_SEED"] ?? 20261130);
/** One case alone (its index in a property's run), to replay a failure. */
const ONLY = process.env["WA_GEN_CASE"] === undefined ? undefined : Number(process.env["WA_GEN_CASE"]);

/** A seeded generator of numbers in [0, 1) and of the choices the cases make. */
export class Rng {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  /** The next number in [0, 1): mulberry32, small, fast and well spread for test data. */
  next(): number {
    return this.#next();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(p = 0.5): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from nothing");
    return items[this.int(0, items.length - 1)]!;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** A non-empty subset of `items`, in their order. */
  subset<T>(items: readonly T[], min = 1): T[] {
    for (;;) {
      const out = items.filter(() => this.bool());
      if (out.length >= min) return out;
    }
  }

  /** A UUID (version 4 shape), lower case. */
  uuid(): string {
    const hex = (n: number) => Array.from({ length: n }, () => this.int(0, 15).toString(16)).join("");
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${this.pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
  }

  /** `text` with each letter in upper or lower case, or all upper, or all lower. */
  caseOf(text: string): string {
    const how = this.int(0, 3);
    if (how === 0) return text.toLowerCase();
    if (how === 1) return text.toUpperCase();
    if (how === 2) return text;
    return [...text].map((c) => (this.bool() ? c.toUpperCase() : c.toLowerCase())).join("");
  }

  /** The same set of ids: shuffled, some repeated. */
  setOf(ids: readonly string[]): string[] {
    const repeats = ids.length === 0 ? [] : Array.from({ length: this.int(0, 3) }, () => this.pick(ids));
    return this.shuffle([...ids, ...repeats]);
  }

  /** An email with a random local part and domain, in the case given (`caseOf` varies it). */
  email(): string {
    const word = () => Array.from({ length: this.int(2, 8) }, () => this.pick([..."abcdefghijklmnopqrstuvwxyz"])).join("");
    return `${this.caseOf(word())}.${this.int(1, 999)}@${this.caseOf(word())}.${this.pick(["com", "org", "example"])}`;
  }

  name(): string {
    return this.pick(["Ann", "Bob", "Cara", "Dev", "Eli", "Fay", "Gus", "Hal", "Ida", "José", "Zoë", "O'Neil", "Li Na"]);
  }
}

/** An optional input left out: absent, `undefined` or `null`, which `check` reads as one (docs: a property given as null is not set). */
export function absent(rng: Rng): { present: false; value?: null } | { present: true; value: undefined | null } {
  const how = rng.int(0, 2);
  if (how === 0) return { present: false };
  return { present: true, value: how === 1 ? undefined : null };
}

/** `props` with `key` left out in one of the ways {@link absent} gives. */
export function leaveOut(rng: Rng, props: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _, ...rest } = props;
  const how = absent(rng);
  return how.present ? { ...rest, [key]: how.value } : rest;
}

/** The one-line provider every resource of the package records, which the engine hands back with its inputs and state. */
const PROVIDER = 'exports.handler = () => require("pulumi-workspace-access/provider/user").provider;\n';

/** What the engine hands a provider: JSON, so no `undefined` value survives, with the `__provider` the state and inputs hold. */
export function engine(value: unknown): Props {
  const json = JSON.parse(JSON.stringify(value ?? null)) as Props | null;
  return json === null || Array.isArray(json) ? (json as Props) : { ...json, __provider: PROVIDER };
}

/** A provider's `check`, as the suite calls it. */
type Checks = { check?(olds: Props, news: Props): Promise<{ inputs?: unknown; failures?: unknown[] }> };

/** What the engine hands `create` or `diff` for `program`: `provider`'s `check` inputs, as JSON; the check passes, with no `undefined`. */
export async function checkedBy(provider: Checks, program: Props): Promise<Props> {
  const result = await provider.check!({}, engine(program));
  expect(result.failures, shown({ program, failures: result.failures })).toEqual([]);
  expect(undefinedPaths(result)).toEqual([]);
  return engine(result.inputs);
}

/** The paths of every `undefined` in `value` (a check or read result must have none: the host cannot encode them). */
export function undefinedPaths(value: unknown, path = "result"): string[] {
  if (value === undefined) return [path];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => undefinedPaths(v, `${path}.${k}`));
}

export { UNKNOWN };

/**
 * Runs `property` over `count` cases, each with its own generator drawn from the seed and the property's name; the first
 * failure is rethrown naming the seed, the case and what it generated (`describe` of the case, when given).
 */
export async function forCases(name: string, count: number, property: (rng: Rng, index: number) => Promise<void>): Promise<void> {
  const salt = [...name].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);
  for (let i = 0; i < count; i++) {
    if (ONLY !== undefined && i !== ONLY) continue;
    const rng = new Rng((SEED ^ salt) + i * 0x9e3779b9);
    try {
      await property(rng, i);
    } catch (error) {
      const where = `[generative] "${name}" failed at case ${i} (WA_GEN_SEED=${SEED} WA_GEN_CASE=${i} to replay)`;
      if (error instanceof Error) {
        error.message = `${where}\n${error.message}`;
        throw error;
      }
      throw new Error(`${where}: ${String(error)}`);
    }
  }
}

/** A note of what a case generated, printed with its failure (`expect(...).toEqual` alone shows the values, not the case). */
export function shown(what: Record<string, unknown>): string {
  return JSON.stringify(what, (_k, v) => (v === undefined ? "<undefined>" : v === UNKNOWN ? "<unknown>" : v));
}
