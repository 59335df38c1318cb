/** A realistic API key for the tests that look for it in what the package prints, and the runs of it they look for. */

/** A realistic key: a prefix and random-looking letters and digits. */
export const RUNS_KEY = "wa_live_Hq7Zt2Kx9Vb4Nm6Pc3Rw8Jd5";

/** The runs of 8 characters of {@link RUNS_KEY} in `text`, in any case: ids are lower-cased where they enter (client/ids.ts). */
export function runsOf(text: string): string[] {
  const found = new Set<string>();
  const folded = text.toLowerCase();
  for (let i = 0; i + 8 <= RUNS_KEY.length; i++) {
    const run = RUNS_KEY.slice(i, i + 8);
    if (folded.includes(run.toLowerCase())) found.add(run);
  }
  return [...found];
}
