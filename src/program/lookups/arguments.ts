/** Argument checks of the lookups, before settings are read: a lookup asked wrongly fails at once, saying what it takes. */
import { LookupError } from "./lookup-error";

/** `seconds`: a finite number above 0 (a wait's length). */
type Kind = "string" | "boolean" | "seconds";

/** What a lookup takes: each argument's type, and whether exactly one of them must be given. */
export interface ArgumentSpec {
  lookup: string;
  args: Readonly<Record<string, Kind>>;
  /** Exactly one of these must be given (the others then absent). */
  exactlyOne?: readonly string[];
  /** These must be given. */
  required?: readonly string[];
  /** Each of these (`timeoutSeconds`) applies only when the argument it names (`waitForCompletion`) is `true`: given without, it is refused. */
  onlyWith?: Readonly<Record<string, string>>;
}

/** The spec of a lookup whose arguments interface is `A` (its fields' docs are the editor's): the two cannot drift apart. */
export type SpecOf<A> = ArgumentSpec & { args: Readonly<Record<keyof A, Kind>> };

const fail = (lookup: string, message: string) => new LookupError(`${lookup}: ${message}`, "lookup_arguments", lookup);

/** The given arguments (those not `undefined`), checked against `spec`; strings must not be blank, and are passed on as given. */
export function checkArguments<T>(spec: ArgumentSpec, args: unknown): T {
  const { lookup } = spec;
  const names = Object.keys(spec.args);
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    throw fail(lookup, `expected an object of arguments (${names.join(", ")}), got ${describe(args)}.`);
  }
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const kind = spec.args[key];
    if (kind === undefined) throw fail(lookup, `unknown argument "${key}": the arguments are ${names.join(", ")}.`);
    if (kind === "string" && (typeof value !== "string" || value.trim() === "")) {
      throw fail(lookup, `${key} must be a non-empty string, got ${describe(value)}.`);
    }
    if (kind === "boolean" && typeof value !== "boolean") throw fail(lookup, `${key} must be true or false, got ${describe(value)}.`);
    if (kind === "seconds" && !(typeof value === "number" && Number.isFinite(value) && value > 0)) {
      throw fail(lookup, `${key} must be a number of seconds above 0, got ${describe(value)}.`);
    }
    given[key] = value;
  }
  for (const key of spec.required ?? []) {
    if (!(key in given)) throw fail(lookup, `${key} is required.`);
  }
  for (const [key, switchedBy] of Object.entries(spec.onlyWith ?? {})) {
    if (key in given && given[switchedBy] !== true) {
      throw fail(lookup, `${key} applies only with ${switchedBy}: true: add ${switchedBy}: true, or leave ${key} out.`);
    }
  }
  if (spec.exactlyOne) {
    const present = spec.exactlyOne.filter((key) => key in given);
    if (present.length !== 1) {
      const got = present.length === 0 ? "none" : present.join(" and ");
      throw fail(lookup, `give exactly one of ${spec.exactlyOne.join(", ")}; got ${got}.`);
    }
  }
  return given as T;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return value === null ? "null" : typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
