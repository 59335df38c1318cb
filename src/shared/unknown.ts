import { unknownValue } from "@pulumi/pulumi/runtime/rpc";

/**
 * During a preview the engine sends this placeholder for values not known yet (e.g. `userId:
 * alice.id` before alice exists). `check` and `diff` must let it through. Pulumi's own constant,
 * from the module that defines it (the host and the program load it anyway).
 */
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
