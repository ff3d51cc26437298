// A sentence for every error code of the protocol (protocol/errors.py).
//
// The server's own sentence is written for developers as much as for
// players, so each code gets words a player understands; where the
// server's sentence names the exact rule (an illegal move, a bad option)
// it is kept as the explanation.  A code this table does not know yet
// falls back to the server's sentence.  tests/web checks that every code
// of protocol/errors.py has an entry here.

const WITH_DETAIL = (lead) => (message) => `${lead} ${sentence(message)}`;

const LEAGUE_LIMIT_REASONS = {
  leagues: "You are in as many leagues as the server allows; leave one to join or create another.",
  members: "That league has as many members as the server allows.",
};

const GHOST_REASONS = {
  attempt_required: "Ghosts race beside your ranked daily attempt only; start today's daily first.",
  not_raceable: "You can race the ghost of a friend, of a league mate, or of the day's leader.",
  not_finished: "That player has not finished today's daily yet; their row on the friends' board shows them live.",
  no_leader: "Nobody has won today's daily yet, so there is no leader to race.",
  ghost_limit: "You race as many ghosts as the server allows; stop one first.",
};

const FRIEND_LIMIT_REASONS = {
  requests_per_hour: "You sent as many friend requests as the server allows in an hour; try again later.",
  friends: "You have as many friends as the server allows; remove one to add another.",
  pending: "Too many of your friend requests are still waiting for an answer; cancel one or wait for answers.",
  blocks: "You have blocked as many players as the server allows; unblock one first.",
};

const UNAVAILABLE_REASONS = {
  nothing_to_undo: "There is nothing to undo.",
  nothing_to_redo: "There is nothing to redo.",
  undo_limit: "No undos are left in this game.",
  hint_limit: "No hints are left in this game.",
  assist_disabled: "Hint, Undo, Redo and automatic finishing are off at this difficulty.",
  finish_not_offered: "This game does not finish by itself.",
  halves_unrepaired: "Automatic finishing waits until every torn card is repaired.",
  no_finish_path: "The server found no sure way to finish from here; keep playing.",
  game_live: "A game is analysed or replayed once it is over.",
  deal_secret: "This deal is still secret (a daily deal until its day is revealed, a race until it ends).",
  analysis_busy: "The server is busy analysing other games; try again in a minute.",
  hint_rate: "You asked for hints faster than the server allows; wait a few seconds.",
  worker_stopped: "The server's search stopped before it answered; nothing changed. Try again.",
  attempt_running: "Your ranked attempt at that daily is still being played; its result can be shared once it ends.",
  not_played: "You have no finished ranked attempt at that daily to share.",
};

export const ERROR_SENTENCES = {
  bad_message: () => "The browser sent something the server could not read. Reload the page; if it happens again, please report it.",
  hello_required: () => "Not signed in yet: wait a moment while the page reconnects.",
  bad_token: () => "This server does not know your saved identity, so you start as a new player.",
  unknown_game: () => "This server does not offer that game.",
  bad_option: WITH_DETAIL("Those game options are not accepted:"),
  bad_notation: WITH_DETAIL("That move could not be read:"),
  illegal_move: WITH_DETAIL("Not allowed:"),
  unavailable: (message, reason) => UNAVAILABLE_REASONS[reason] ?? sentence(message),
  game_not_found: () => "That game does not exist any more (or never did).",
  forbidden: WITH_DETAIL("You cannot do that here:"),
  player_not_found: () => "No player has that id.",
  game_finished: () => "This game is over; start a new one.",
  state_conflict: () => "The game changed elsewhere first; the board now shows the latest position. Try again.",
  stale_state: () => "The game had already moved on (another tab, or a repeated click), so that was not done; the board shows the latest position.",
  race_not_found: () => "No race has that code or link. Check the code with your host: it has 8 letters and digits (no 0, 1, I, L or O).",
  invite_expired: () => "That invite has expired. Ask your host to create a new race.",
  race_full: () => "That race is full. Ask your host for a new race, or watch this one.",
  race_state: (message) => `Not now: ${sentence(String(message ?? "").replace(/\s*\(starts_at \d+\)/, ""))}`,
  rate_limited: () => "Too many actions at once; slow down a little.",
  too_many_connections: () => "Too many connections from your network are open; close a tab and reload.",
  cooling_down: () => "Your network was disconnected for sending too fast; wait half a minute, then reload.",
  too_many_identities: () => "Too many new players were created from your network this hour; come back later (your saved player still works).",
  storage_unavailable: () => "The server cannot save right now, so nothing changed. Try again in a moment.",
  shutting_down: () => "The server is restarting; the page reconnects by itself in a moment.",
  internal_error: () => "The server ran into an unexpected problem; the game is unchanged.",
  offline: () => "Not connected to the server; reconnecting…",
  bad_link_code: () => "That code does not work: it is mistyped, used already or expired. Ask your other device for a new one.",
  too_many_attempts: WITH_DETAIL("Too many device codes tried or asked for:"),
  too_many_devices: () => "Your player is signed in on as many devices as the server allows; revoke one under Your devices first.",
  device_not_found: () => "That device is not signed in any more.",
  friend_code_unknown: () => "No player has that friend code. Check it with your friend: 8 letters and digits.",
  lookups_limited: WITH_DETAIL("Too many friend codes that named nobody:"),
  reads_limited: WITH_DETAIL("Too many lists and boards asked for from your network:"),
  starts_limited: WITH_DETAIL("Too many games started from your network:"),
  friend_limit: (message, reason) => FRIEND_LIMIT_REASONS[reason] ?? sentence(message),
  not_friends: () => "You are not friends with that player (or the request was already answered).",
  friend_offline: () => "Your friend is not online right now; challenge them when they are.",
  challenge_not_found: () => "That challenge was already answered, or is not yours.",
  challenge_expired: () => "That challenge has expired; ask your friend for a new one.",
  ghost_unavailable: (message, reason) => GHOST_REASONS[reason] ?? sentence(message),
  league_not_found: () => "You are in no such league (it may have ended, or you left or were removed).",
  league_code_unknown: () => "No league has that invite code. Check it with a member: 8 letters and digits.",
  league_lookups_limited: WITH_DETAIL("Too many league codes that named no league:"),
  league_limit: (message, reason) => LEAGUE_LIMIT_REASONS[reason] ?? sentence(message),
  not_league_owner: () => "Only the league's owner can do that.",
};

// Close codes the server uses for abuse or overload (docs/protocol.md).
export const CLOSE_SENTENCES = {
  1001: "The server is restarting.",
  1008: "Disconnected for sending too many messages.",
  1009: "Disconnected: a message was too large.",
  1011: "The connection stopped answering.",
  1012: "The server is restarting.",
  1013: "Disconnected: the connection was too slow to keep up.",
  4001: "This device was signed out from another of your devices.",
};

// Why a page that could not open its connection is still waiting
// (reconnect.js's retryPlan): said in the banner before its countdown.
const REFUSALS = {
  cooling_down: "The server asks your network to wait before it connects again.",
  too_many_connections: "Your network already holds as many connections as the server allows; close another tab of this site.",
};

export function waitingSentence(waitingFor) {
  if (!waitingFor) return "";
  if (waitingFor.kind === "unreachable") return "The server is not answering.";
  if (waitingFor.kind === "refused") return REFUSALS[waitingFor.code] ?? `The server refused the connection. ${sentence(waitingFor.message)}`.trim();
  return "The connection failed.";
}

export function errorSentence(error) {
  const explain = ERROR_SENTENCES[error.code];
  return explain ? explain(error.message, error.reason) : sentence(error.message);
}

function sentence(text) {
  const trimmed = String(text ?? "").trim();
  if (!trimmed) return "";
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
