/** A problem of an export's own (a missing key, an unknown `--integration`), the fix in its message; the service's keep their classes. */
export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportError";
  }
}
