/**
 * During a preview the engine sends this placeholder for values not known yet (e.g. `userId:
 * alice.id` before alice exists). `check` and `diff` must let it through: it is the value
 * `@pulumi/pulumi/runtime/rpc` calls `unknownValue`.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

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
