/**
 * One identity for a record id (a user's or an integration's UUID). Whether the service keeps the
 * case a client sent is not documented (the contract notes), so an id is turned into its one form,
 * lower case, where it enters: the program's inputs (`check`), the service's answers (the models),
 * `access.yaml`. Every comparison, map key and ownership check then uses that form, and every
 * request carries it. Emails are not ids: they compare case-insensitively on their own (`sameEmail`).
 */

declare const ID: unique symbol;

/** A record id in its one form (lower case): made only by {@link idOf}. */
export type Id = string & { readonly [ID]: true };

/** The one form of an id, for comparing, keying and sending it. */
export const idOf = (raw: string): Id => raw.toLowerCase() as Id;

/** Whether two ids, in whatever case they came, name the same record. */
export const sameId = (a: string, b: string): boolean => idOf(a) === idOf(b);
