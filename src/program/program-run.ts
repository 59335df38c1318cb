/**
 * What one run of the user's program remembers: the owners declared (`owners.ts`), the warnings given, the lookups'
 * sessions. Pulumi hands a program no context, so a run is told by its resource monitor (one per `up`, preview or
 * `setMocks`) and its memory kept under it in a `WeakMap`: two programs run in one process never see each other's.
 */
import * as pulumi from "@pulumi/pulumi";
import type { LookupSession } from "./lookups/session";

/** Who may manage an integration's members: an `IntegrationMembers` (all of them) or an `IntegrationEntitlement` (one). */
export type OwnerKind = "User" | "IntegrationEntitlement" | "IntegrationMembers";

/** One run's memory. */
export interface ProgramRun {
  /** Resource names by kind and key (an email, a membership), in the order they were declared. */
  readonly owners: Map<string, string[]>;
  /** The resources that manage members of an integration, by integration id, in the order they were declared. */
  readonly integrationOwners: Map<string, Array<{ kind: OwnerKind; name: string }>>;
  /** The warnings given once per run (`plaintext-api-key`). */
  readonly warned: Set<string>;
  /** The lookups' sessions, one per workspace and key (by a hash of the settings: see `lookups/session.ts`). */
  readonly lookups: Map<string, LookupSession>;
  /** The values that become known together are checked once they have all been declared: that round. */
  round: Promise<void> | undefined;
}

/** Each run's memory, by its resource monitor; code outside any run (no monitor) shares the one under {@link OUTSIDE}. */
const runs = new WeakMap<object, ProgramRun>();
const OUTSIDE = Object.freeze({});

/** The memory of the run this code is part of. */
export function thisRun(): ProgramRun {
  const monitor = pulumi.runtime.getMonitor() ?? OUTSIDE;
  let run = runs.get(monitor);
  if (!run) {
    run = { owners: new Map(), integrationOwners: new Map(), warned: new Set(), lookups: new Map(), round: undefined };
    runs.set(monitor, run);
  }
  return run;
}
