/** The one error a fleet run throws, before any stack runs: an unknown stack, no Pulumi project, a bad flag (exit 2). */
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
