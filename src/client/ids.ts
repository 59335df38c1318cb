/** One form of a record id: whether the service keeps an id's case is undocumented, so ids are lower-cased where they enter. */

declare const ID: unique symbol;

/** A record id in its one form (lower case): made only by {@link idOf}. */
export type Id = string & { readonly [ID]: true };

/** The one form of an id, for comparing, keying and sending it. */
export const idOf = (raw: string): Id => raw.toLowerCase() as Id;

/** Whether two ids, in whatever case they came, name the same record. */
export const sameId = (a: string, b: string): boolean => idOf(a) === idOf(b);
