/**
 * "Create once": a POST that fails ambiguously (no answer, a timeout, a 5xx) may or may not have
 * been carried out, so it is never sent again blindly. What it would have made is looked up
 * first; only when it is not there is the POST sent again (after the policy's back-off). Used by
 * user creates and invitations, the two POSTs of the contract.
 */
import { isAmbiguous } from "./errors";

/** One create. */
export interface CreateOnce<Sent, Found> {
  /** Sends the POST. */
  send(): Promise<Sent>;
  /** What the POST would have made, if it exists now; `undefined` when it does not. */
  lookUp(): Promise<Found | undefined>;
  /**
   * Re-sends after an ambiguous failure whose look-up found nothing. Leave it out where a look-up
   * that finds nothing cannot prove the POST was not carried out (an accepted invitation's member
   * appears only when its job ends): the failure is then raised as it is.
   */
  retry?: {
    max: number;
    /** Waits before re-send `attempt + 1`, logging `reason`. */
    backoff(attempt: number, reason: string): Promise<void>;
  };
  /** The POST, for the log: `POST users`. */
  what: string;
}

/** The POST's answer, or what a look-up after an ambiguous failure found. */
export async function createOnce<Sent, Found>(create: CreateOnce<Sent, Found>): Promise<{ sent: Sent } | { found: Found }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { sent: await create.send() };
    } catch (error) {
      if (!isAmbiguous(error)) throw error;
      const found = await create.lookUp();
      if (found !== undefined) return { found };
      if (!create.retry || attempt >= create.retry.max) throw error;
      await create.retry.backoff(attempt, `${create.what} failed without an answer and nothing was created`);
    }
  }
}
