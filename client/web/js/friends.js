// Friends, their presence and the notifications, as the page knows them:
// pure functions of the server's messages (the panels in friendspanel.js,
// notices.js and devicespanel.js draw what these say).
//
// Presence is a friend's state (online, away, offline with when last
// seen) and what they are doing; the words for it are computed on the
// server's clock, so "last seen 5 min ago" does not depend on this
// device's clock being right.

const STATE_WORDS = { online: "Online", away: "Away", offline: "Offline" };
const STATE_ORDER = { online: 0, away: 1, offline: 2 };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

// "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago".
export function agoWords(thenMs, nowMs) {
  const ago = Math.max(0, nowMs - thenMs);
  if (ago < MINUTE_MS) return "just now";
  if (ago < HOUR_MS) return `${Math.floor(ago / MINUTE_MS)} min ago`;
  if (ago < DAY_MS) return `${Math.floor(ago / HOUR_MS)} h ago`;
  const days = Math.floor(ago / DAY_MS);
  return days === 1 ? "yesterday" : `${days} days ago`;
}

// "9:58 left" for a code still valid, "expired" after.
export function expiryWords(expiresMs, nowMs) {
  const left = Math.ceil((expiresMs - nowMs) / 1000);
  if (left <= 0) return "expired";
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
}

// "ABCD2345" → "ABCD-2345": codes are read out and typed by people, so
// they show in groups (of `size`); dashes never matter to the server.
export function groupedCode(code, size = 4) {
  return String(code ?? "").match(new RegExp(`.{1,${size}}`, "g"))?.join("-") ?? "";
}

// What a code typed by a person means: letters and digits, upper case.
export function typedCode(text) {
  return String(text ?? "").replace(/[^A-Za-z0-9]/g, "").toUpperCase();
}

export function friendInviteLink(code, location) {
  return `${location.origin}${location.pathname}#friend=${encodeURIComponent(code)}`;
}

// What a friend is doing, in words: `activity` as presence reports it;
// `gameTitle(game id)` names the game.  A daily attempt says which game
// only: its deal is secret until the day is revealed.
export function activityWords(activity, gameTitle = (game) => game) {
  const title = activity?.game ? gameTitle(activity.game) : "";
  if (activity?.kind === "lobby") return "in the lobby";
  if (activity?.kind === "game") return title ? `playing ${title}` : "playing";
  if (activity?.kind === "daily") return `playing today's ${title ? `${title} ` : ""}daily`;
  if (activity?.kind === "race") return title ? `racing at ${title}` : "racing";
  return "";
}

// A friend's presence line: its state and, online or away, what it is
// doing; offline, when it was last seen.  No presence yet reads offline.
export function presenceLine(presence, nowMs, gameTitle) {
  const state = presence?.state ?? "offline";
  const detail = state === "offline"
    ? (presence?.last_seen ? `last seen ${agoWords(presence.last_seen, nowMs)}` : "")
    : activityWords(presence.activity, gameTitle);
  return { state, text: detail ? `${STATE_WORDS[state]} · ${detail}` : STATE_WORDS[state] };
}

// Where a friend's activity may be followed: a casual game to watch or a
// race to open, or null (a daily attempt's deal is secret).
export function followable(presence) {
  const activity = presence?.state === "offline" ? null : presence?.activity;
  if (activity?.kind === "game" && activity.game_id) return { kind: "watch", gameId: activity.game_id };
  if (activity?.kind === "race" && activity.race_id) return { kind: "race", raceId: activity.race_id };
  return null;
}

// Friends online first, then away, then offline; by name within each.
export function sortFriends(friends) {
  const rank = (friend) => STATE_ORDER[friend.presence?.state ?? "offline"] ?? 2;
  return [...friends].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

// The notifications this page has seen, newest first, each once (a
// reconnection hands back the unread ones again), at most `limit`.
export class Inbox {
  constructor(limit = 50) {
    this.limit = limit;
    this.byId = new Map();
  }

  receive(notifications) {
    for (const note of notifications) {
      const known = this.byId.get(note.notification_id);
      this.byId.set(note.notification_id, { ...note, read: Boolean(note.read || known?.read) });
    }
    const newest = this.list();
    this.byId = new Map(newest.slice(0, this.limit).map((note) => [note.notification_id, note]));
  }

  knows(id) {
    return this.byId.has(id);
  }

  list() {
    return [...this.byId.values()].sort((a, b) => b.at_ms - a.at_ms);
  }

  unread() {
    return this.list().filter((note) => !note.read);
  }

  markRead(ids) {
    for (const id of ids) {
      const note = this.byId.get(id);
      if (note) this.byId.set(id, { ...note, read: true });
    }
  }

  forget(id) {
    this.byId.delete(id);
  }
}

const DAILY_RESULT_WORDS = { won: "won", lost: "ran out of moves on", resigned: "resigned" };

// A notification in words; `gameTitle(game id)` names the game.
export function noticeWords(note, gameTitle = (game) => game) {
  const who = note.sender?.name ?? "Someone";
  const game = note.game ? gameTitle(note.game) : "";
  if (note.kind === "friend_request") return `${who} sent you a friend request.`;
  if (note.kind === "friend_accepted") return `${who} accepted your friend request.`;
  if (note.kind === "challenge") return `${who} challenges you to a ${game ? `${game} ` : ""}race.`;
  if (note.kind === "challenge_declined") return `${who} declined your challenge.`;
  if (note.kind === "friend_finished_daily") {
    const how = DAILY_RESULT_WORDS[note.result] ?? "finished";
    const moves = note.moves == null ? "" : ` in ${note.moves} moves`;
    return `${who} ${how} today's ${game ? `${game} ` : ""}daily${moves}.`;
  }
  return `${who}: ${note.kind.replaceAll("_", " ")}.`;
}

// Whether a notification still waits for an answer here: a friend request
// (answered from the friends list's state) or a challenge not yet expired.
export function answerable(note, friendState, nowMs) {
  if (note.kind === "friend_request") return friendState === "request_received";
  if (note.kind === "challenge") return !note.answered && (note.expires_ms == null || note.expires_ms > nowMs);
  return false;
}
