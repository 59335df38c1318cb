/**
 * A small body checker that collects every problem before failing, so a 400 lists them all
 * (as the service's validation layer does) instead of only the first.
 */
import { ApiError, type ValidationIssue } from "./errors";

type Loc = Array<string | number>;

/** A loose but real email shape: something@something.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A UUID of any version, any case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a string is a UUID. */
function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Collects validation issues; `done()` throws a 400 when there are any. */
export class Checker {
  /** The problems found so far. */
  readonly issues: ValidationIssue[] = [];

  /** Records a problem. */
  add(loc: Loc, msg: string, type: string): void {
    this.issues.push({ loc, msg, type });
  }

  /** Reads a required object field (or the root when `key` is undefined). */
  object(parent: Record<string, unknown> | undefined, key: string, loc: Loc, required = true): Record<string, unknown> | undefined {
    if (parent === undefined) return undefined;
    const value = parent[key];
    if (value === undefined || value === null) {
      if (required) this.add([...loc, key], "field required", "value_error.missing");
      return undefined;
    }
    if (!isObject(value)) {
      this.add([...loc, key], "value is not a valid dict", "type_error.dict");
      return undefined;
    }
    return value;
  }

  /** Reads a string field; `required` fields must be present and non-blank. */
  string(parent: Record<string, unknown> | undefined, key: string, loc: Loc, required = true): string | undefined {
    if (parent === undefined) return undefined;
    const value = parent[key];
    if (value === undefined || value === null) {
      if (required) this.add([...loc, key], "field required", "value_error.missing");
      return undefined;
    }
    if (typeof value !== "string") {
      this.add([...loc, key], "str type expected", "type_error.str");
      return undefined;
    }
    if (required && value.trim() === "") {
      this.add([...loc, key], "ensure this value has at least 1 characters", "value_error.any_str.min_length");
      return undefined;
    }
    return value;
  }

  /** Reads an email field. */
  email(parent: Record<string, unknown> | undefined, key: string, loc: Loc): string | undefined {
    const value = this.string(parent, key, loc);
    if (value === undefined) return undefined;
    if (!EMAIL.test(value) || value.length > 254) {
      this.add([...loc, key], "value is not a valid email address", "value_error.email");
      return undefined;
    }
    return value;
  }

  /** Reads a string field that must be one of `allowed`. */
  oneOf<T extends string>(
    parent: Record<string, unknown> | undefined,
    key: string,
    loc: Loc,
    allowed: readonly T[],
    required = true,
  ): T | undefined {
    const value = this.string(parent, key, loc, required);
    if (value === undefined) return undefined;
    const found = allowed.find((candidate) => candidate === value);
    if (found === undefined) {
      this.add(
        [...loc, key],
        `value is not a valid enumeration member; permitted: ${allowed.map((a) => `'${a}'`).join(", ")}`,
        "type_error.enum",
      );
    }
    return found;
  }

  /** Reads an optional boolean field. */
  boolean(parent: Record<string, unknown> | undefined, key: string, loc: Loc): boolean | undefined {
    if (parent === undefined) return undefined;
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") {
      this.add([...loc, key], "value could not be parsed to a boolean", "type_error.bool");
      return undefined;
    }
    return value;
  }

  /** Reads an array field. */
  array(parent: Record<string, unknown> | undefined, key: string, loc: Loc, required = true): unknown[] | undefined {
    if (parent === undefined) return undefined;
    const value = parent[key];
    if (value === undefined || value === null) {
      if (required) this.add([...loc, key], "field required", "value_error.missing");
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.add([...loc, key], "value is not a valid list", "type_error.list");
      return undefined;
    }
    return value;
  }

  /** Reads an array of `{ id: string }` objects into the ids, duplicates dropped. */
  idObjects(parent: Record<string, unknown> | undefined, key: string, loc: Loc, required = true): string[] | undefined {
    const items = this.array(parent, key, loc, required);
    if (items === undefined) return undefined;
    const ids: string[] = [];
    const before = this.issues.length;
    items.forEach((item, index) => {
      const here = [...loc, key, index];
      if (!isObject(item)) {
        this.add(here, "value is not a valid dict", "type_error.dict");
        return;
      }
      const id = this.string(item, "id", here);
      if (id !== undefined && !ids.includes(id)) ids.push(id);
    });
    return this.issues.length === before ? ids : undefined;
  }

  /** Reads a non-empty array of UUID strings, duplicates dropped. */
  uuids(parent: Record<string, unknown> | undefined, key: string, loc: Loc): string[] | undefined {
    const items = this.array(parent, key, loc);
    if (items === undefined) return undefined;
    if (items.length === 0) {
      this.add([...loc, key], "ensure this value has at least 1 items", "value_error.list.min_items");
      return undefined;
    }
    const ids: string[] = [];
    const before = this.issues.length;
    items.forEach((item, index) => {
      if (typeof item !== "string" || !isUuid(item)) {
        this.add([...loc, key, index], "value is not a valid uuid", "type_error.uuid");
        return;
      }
      if (!ids.includes(item)) ids.push(item);
    });
    return this.issues.length === before ? ids : undefined;
  }

  /** Throws a 400 listing every issue, if any. */
  done(): void {
    if (this.issues.length > 0) throw ApiError.validation(this.issues);
  }
}

/** The issue for a body that is missing or not JSON. */
export function requireJsonBody(body: unknown, invalidJson: boolean): Record<string, unknown> {
  if (invalidJson) {
    throw ApiError.validation([{ loc: ["body"], msg: "Expecting a JSON document", type: "value_error.jsondecode" }]);
  }
  if (body === undefined) {
    throw ApiError.validation([{ loc: ["body"], msg: "field required", type: "value_error.missing" }]);
  }
  if (!isObject(body)) {
    throw ApiError.validation([{ loc: ["body"], msg: "value is not a valid dict", type: "type_error.dict" }]);
  }
  return body;
}
