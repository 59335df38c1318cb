/** A problem of an export's own (a missing key, an unknown `--integration`), the fix in its message; the service's keep their classes. */
export class ExportError extends Error {
  override name = "ExportError";
}

/** A problem with `access.yaml`'s contents, naming the file, the line and what to fix. */
export class AccessFileError extends ExportError {
  override name = "AccessFileError";
}
