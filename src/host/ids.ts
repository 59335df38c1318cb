/**
 * How the resources compare record ids (UUIDs): case-insensitively. Whether the service keeps the
 * case a client sent is not documented, and one answering in another case must not make a member
 * look unmanaged, a miss, or a changed id.
 */

/** The key of an id in a map of records. */
export const idKey = (id: string): string => id.toLowerCase();

/** Whether two ids name the same record. */
export const sameId = (a: string, b: string): boolean => idKey(a) === idKey(b);
