/**
 * A problem an export reports to the person running it (a missing key, an unknown `--integration`,
 * a directory it will not overwrite), with the fix in the message; never the API key. The service's
 * own failures keep their classes (`UnauthorizedError`, ...).
 */
export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportError";
  }
}
