/**
 * A problem an export reports to the person running it (a missing key, an unknown
 * `--integration`, a directory it will not overwrite), with the fix in the message. Never holds the
 * API key. The service's own failures keep their classes (`UnauthorizedError`, ...).
 */
import { describeScopes, SCOPES } from "../client/scopes";

/** The scopes an export's key needs: `Read users (read:users) and Read integrations (read:integrations)`. */
export const SCOPES_NEEDED = describeScopes([SCOPES.readUsers, SCOPES.readIntegrations]);

export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExportError";
  }
}
