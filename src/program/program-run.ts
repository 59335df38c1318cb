/**
 * What one run of the user's program remembers. Pulumi hands a program no context, so a run is told by its resource
 * monitor (one per `up`, preview or `setMocks`): two programs run in one process never see each other's memory.
 */
import * as pulumi from "@pulumi/pulumi";
import type { LookupSession } from "./lookups/session";

/** A resource that manages a record of the run: a user, a membership, or (an `IntegrationMembers`) an integration's members. */
export interface Owner {
  kind: "User" | "IntegrationEntitlement" | "IntegrationMembers";
  name: string;
  /** The one resource (made per construction): two resources may share a name (other parents) or a kind's key (`User`, `WorkspaceUsers`). */
  instance: object;
  /** The class, as messages name it, where it is not `kind` (a `WorkspaceUsers` declares its users as `User`s). */
  label?: string;
  /** Whether the resource declared the key as a secret: a message about the key then does not name it. */
  secret?: boolean;
}

/** One run's memory. */
export interface ProgramRun {
  /** The resources that manage each record (an email, a membership, an integration's members), in declaration order. */
  readonly owners: Map<string, Owner[]>;
  /** The warnings given once per run (`plaintext-api-key`). */
  readonly warned: Set<string>;
  /** The lookups' sessions, by a hash of the settings (`lookups/session.ts`). */
  readonly lookups: Map<string, Promise<LookupSession>>;
  /** Settles once the package's stack transform is registered (`applyTransformedOptions`); `undefined` until it is asked for. */
  transformedOptions: Promise<void> | undefined;
  /** The first of the package's resources the run declared (`User "grace"`), which `applyTransformedOptions` must precede. */
  firstDeclared: string | undefined;
  /** The values that become known together are checked once they have all been declared: that round. */
  round: Promise<void> | undefined;
}

/** Each run's memory, by its resource monitor; code outside any run shares the one under {@link OUTSIDE}. */
const runs = new WeakMap<object, ProgramRun>();
const OUTSIDE = Object.freeze({});

/** The memory of the run this code is part of. */
export function thisRun(): ProgramRun {
  const monitor = pulumi.runtime.getMonitor() ?? OUTSIDE;
  let run = runs.get(monitor);
  if (!run) {
    run = {
      owners: new Map(),
      warned: new Set(),
      lookups: new Map(),
      round: undefined,
      transformedOptions: undefined,
      firstDeclared: undefined,
    };
    runs.set(monitor, run);
  }
  return run;
}
