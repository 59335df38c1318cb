/**
 * Defence in depth for the API key: every message the client builds passes through here, so the
 * key cannot leak even when the service echoes it back in an error detail.
 */
export function makeRedactor(secret: string): (text: string) => string {
  if (secret.length < 4) return (text) => text;
  return (text) => text.split(secret).join("[redacted]");
}
