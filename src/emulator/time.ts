/**
 * Timestamps in the service's own format: microseconds and an explicit UTC offset
 * (`2024-08-29T19:31:21.563000+00:00`), which `Date.toISOString()` does not produce.
 */

/** Formats epoch milliseconds the way the service does. */
export function formatTimestamp(ms: number): string {
  // toISOString gives `...T19:31:21.563Z`; the service pads to microseconds and spells the offset.
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}
