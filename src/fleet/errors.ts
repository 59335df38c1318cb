/**
 * The one error a fleet run throws before any stack runs: the command was used wrongly (an unknown
 * stack named, no Pulumi project in the folder, a bad flag). The command exits 2 on it.
 */
export class FleetUsageError extends Error {
  /** Marks the class across copies of the package (`instanceof` fails between two copies). */
  readonly isFleetUsageError = true;

  constructor(message: string) {
    super(message);
    this.name = "FleetUsageError";
  }

  /** Whether `error` is a {@link FleetUsageError}, from this copy of the package or another. */
  static isInstance(error: unknown): error is FleetUsageError {
    return typeof error === "object" && error !== null && (error as { isFleetUsageError?: unknown }).isFleetUsageError === true;
  }
}
