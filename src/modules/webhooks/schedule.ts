/**
 * The retry schedule: after a failed first attempt, up to 5 retries 5, 10, 20, 40 and 80
 * minutes apart (2 h 35 min in all), then the delivery is failed.
 */
export const RETRY_DELAYS_MS = [5, 10, 20, 40, 80].map((minutes) => minutes * 60_000);
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Only HTTP 200 within this time acknowledges a delivery. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/**
 * After the final attempt is claimed, how long before a sweep may declare the delivery
 * failed when the worker died before recording its outcome.
 */
export const FINAL_ATTEMPT_GRACE_MS = 2 * ATTEMPT_TIMEOUT_MS;

/**
 * When the attempt after `attempt` (1-based) is due, measured from when `attempt` started;
 * null when `attempt` is the last one.
 */
export function followingAttemptAt(attempt: number, startedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attempt - 1];
  return delay === undefined ? null : new Date(startedAt.getTime() + delay);
}
