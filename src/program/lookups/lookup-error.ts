import { WorkspaceAccessError } from "../../client/errors";

/** A record a lookup could have meant, as its error lists it. */
export interface LookupCandidate {
  id: string;
  label: string | null;
}

/** A lookup that does not guess: it matched nothing, more than one record (with every candidate), or was asked wrongly (before any request). */
export class LookupError extends WorkspaceAccessError {
  static override readonly KINDS = ["lookup_not_found", "lookup_ambiguous", "lookup_arguments"] as const;
  /** The lookup that failed, e.g. `getIntegration`. */
  readonly lookup: string;
  /** The records that matched, for `lookup_ambiguous`; empty otherwise. */
  readonly candidates: readonly LookupCandidate[];

  constructor(message: string, kind: (typeof LookupError.KINDS)[number], lookup: string, candidates: readonly LookupCandidate[] = []) {
    super(message, { kind });
    this.lookup = lookup;
    this.candidates = candidates;
  }
}

/** A lookup that matched nothing: `getUser: no user with id "x" in the workspace at acme.example.com.` */
export function notFound(session: { workspace: string }, lookup: string, what: string): LookupError {
  return new LookupError(`${lookup}: ${what} in the workspace at ${session.workspace}.`, "lookup_not_found", lookup);
}
