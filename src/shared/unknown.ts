import { unknownValue } from "@pulumi/pulumi/runtime/rpc";

/** Pulumi's placeholder for a value a preview does not know yet (`userId: alice.id` before alice exists): `check` and `diff` let it through. */
export const UNKNOWN: string = unknownValue;

/** True for the preview placeholder of a value not known yet. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** True when the value or any element of it is not known yet. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Whether `value` is a string the preview knows (not its placeholder). */
export const knownString = (value: unknown): value is string => typeof value === "string" && !isUnknown(value);
