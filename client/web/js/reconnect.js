// When to try again after the connection closed, and what for.
//
// A socket that never opened (the server refused the handshake, or did
// not answer) says nothing about why: a browser hides the HTTP status of
// a failed WebSocket handshake.  So the connection then asks the server
// over plain HTTP (`/admission`, which spends nothing) what a handshake
// from its address would hear, waits at least the `Retry-After` it is
// told, and says what it is waiting for.  The delays grow and are
// jittered, so the tabs of one household (or a fleet of bots) do not
// knock in step.

export const RETRY_STEPS_MS = [500, 1000, 2000, 4000, 8000, 15000];
const JITTER = 0.25;

/**
 * What a handshake from this address would hear now: `{admitted: true}`,
 * the server's refusal (`{code, message, retryAfter}` in seconds), or
 * `{unreachable: true}` when nothing answers.
 * @typedef {{admitted?: boolean, unreachable?: boolean, code?: string, message?: string, retryAfter?: number}} Verdict
 */

/**
 * Why the connection is still waiting: `unreachable` (nothing answers),
 * `refused` (with the server's `code` and `message`), or `failed` (the
 * server would admit us, yet the socket failed).
 * @typedef {{kind: "unreachable" | "refused" | "failed", code?: string, message?: string}} WaitingFor
 */

/**
 * The part of `fetch` the admission check needs (browsers, Node 18+).
 * @typedef {(url: string, init: {cache: "no-store"}) => Promise<{ok: boolean, status: number,
 *   headers: {get(name: string): string | null}, json(): Promise<any>}>} FetchLike
 */

/**
 * How long to wait before the next attempt, and what for: the growing
 * step for this many failures, jittered by `random` (0..1), and at least
 * the server's Retry-After when it refused us.
 * @param {number} failures attempts that failed in a row before this one
 * @param {Verdict | null} verdict
 * @param {number} random
 * @returns {{retryMs: number, waitingFor: WaitingFor | null}}
 */
export function retryPlan(failures, verdict, random) {
  const step = RETRY_STEPS_MS[Math.min(failures, RETRY_STEPS_MS.length - 1)];
  let retryMs = Math.round(step * (1 - JITTER + 2 * JITTER * random));
  /** @type {WaitingFor | null} */
  let waitingFor = null;
  if (verdict?.unreachable) {
    waitingFor = { kind: "unreachable" };
  } else if (verdict?.code) {
    retryMs = Math.max(retryMs, (verdict.retryAfter ?? 0) * 1000 + Math.round(1000 * random));
    waitingFor = { kind: "refused", code: verdict.code, message: verdict.message ?? "" };
  } else if (verdict?.admitted) {
    waitingFor = { kind: "failed" };
  }
  return { retryMs, waitingFor };
}

/**
 * Ask the server what a handshake from this address would hear.
 * @param {FetchLike} fetch
 * @param {string} socketUrl
 * @returns {Promise<Verdict>}
 */
export async function admission(fetch, socketUrl) {
  try {
    const response = await fetch(admissionUrl(socketUrl), { cache: "no-store" });
    if (response.ok) return { admitted: true };
    const body = await response.json().catch(() => ({}));
    return { code: body.code ?? `http_${response.status}`, message: body.message ?? "",
      retryAfter: Number(response.headers.get("Retry-After")) || 0 };
  } catch {
    return { unreachable: true };
  }
}

/**
 * The admission check's address: the WebSocket's host, over the matching scheme.
 * @param {string} socketUrl
 * @returns {string}
 */
export function admissionUrl(socketUrl) {
  const url = new URL(socketUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = "/admission";
  return url.href;
}
