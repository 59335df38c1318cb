/**
 * Defence in depth for the API key: every message the client builds passes through here, so the
 * key cannot leak even when the service echoes it back in an error detail.
 */
export function makeRedactor(secret: string): (text: string) => string {
  // Settings refuse keys shorter than MIN_API_KEY_LENGTH, so every key that is sent is redacted.
  if (secret === "") return (text) => text;
  return (text) => text.split(secret).join("[redacted]");
}
