// A race as this page knows it: the last `race` message plus every
// `race_progress` since.
//
// Each racer's line remembers the server time of the message that carried
// it, because `elapsed_ms` is "as of the message": a racer still playing
// has played that much more since.  The phase is recomputed on the
// server's clock (servertime.js) too, so the countdown turns into the race
// at `starts_at` even before the first board arrives.

export const RACER_STATE_WORDS = {
  waiting: "Waiting",
  playing: "Playing",
  disconnected: "Disconnected",
  won: "Won",
  lost: "No moves left",
  resigned: "Resigned",
  abandoned: "Out of time",
  sitting_out: "Sitting out: finishing their ranked daily",
};

// Why a racer takes no place (`apart`), as a results row says it.
export const APART_WORDS = {
  deal_seen: "Apart: had seen today's deal",
  ranked_first: "Sat out: their ranked daily was still being played",
};

const CLOCK_RUNNING = new Set(["waiting", "playing", "disconnected"]);

export class RaceModel {
  constructor(info, serverTime) {
    this.racers = new Map();
    this.update(info, serverTime);
  }

  get raceId() { return this.info.race_id; }

  // A `race` message: the whole race as it is at `serverTime`.
  update(info, serverTime) {
    this.info = info;
    this.racers = new Map(info.racers.map((racer) => [racer.player_id, { racer, at: serverTime }]));
  }

  // A `race_progress` message (an older one than what we know is dropped:
  // pub/sub does not promise order across server processes).
  progress(racer, serverTime) {
    const known = this.racers.get(racer.player_id);
    if (known && known.at > serverTime) return;
    this.racers.set(racer.player_id, { racer, at: serverTime });
  }

  // Racers in joining order, each with the server time of its line.
  entries() {
    return [...this.racers.values()];
  }

  isRacer(playerId) {
    return playerId !== null && this.racers.has(playerId);
  }

  gameOf(playerId) {
    return this.racers.get(playerId)?.racer.game_id ?? null;
  }

  ownerOfGame(gameId) {
    return this.entries().find(({ racer }) => racer.game_id === gameId)?.racer ?? null;
  }

  phase(now) {
    const { phase, starts_at: startsAt, invite_expires_ms: expires } = this.info;
    if (phase === "countdown" && now >= startsAt) return "running";
    if (phase === "lobby" && now >= expires) return "expired";
    return phase;
  }

  countdownMs(now) {
    return Math.max(0, this.info.starts_at - now);
  }

  timeLeftMs(now) {
    return this.info.ends_at === null ? null : Math.max(0, this.info.ends_at - now);
  }

  // A racer's state now: after the start, nobody still "waits".
  stateOf({ racer }, now) {
    return racer.state === "waiting" && this.phase(now) === "running" ? "playing" : racer.state;
  }

  // A racer's time on the race clock now, counting on from their last line.
  elapsedMs({ racer, at }, now) {
    const { starts_at: startsAt, ends_at: endsAt } = this.info;
    if (startsAt === null || this.phase(now) !== "running" || !CLOCK_RUNNING.has(racer.state)) return racer.elapsed_ms;
    const from = Math.max(at, startsAt);
    return racer.elapsed_ms + Math.max(0, Math.min(now, endsAt ?? now) - from);
  }
}

// A game's result (won, lost, resigned, abandoned) is also the state its
// racer ends in, so it reads the same words.
export function resultWords(result) {
  return RACER_STATE_WORDS[result] ?? result;
}

// The finish banner: the winner (or that nobody won) and every placed
// racer in order, "1st Ann 1:02", "2nd Bob 1:10", from the results (winners
// by time first; the others have no place).  `formatTime` formats the time.
export function finishBanner(results, me, formatTime) {
  const placed = results.filter((row) => row.place !== null).sort((a, b) => a.place - b.place);
  const who = (row) => (row.player_id === me ? "You" : row.name);
  const headline = placed.length
    ? `${who(placed[0])} ${placed[0].player_id === me ? "win" : "wins"}!`
    : "Nobody finished the deal.";
  const places = placed.map((row) => `${ordinal(row.place)} ${who(row)} ${formatTime(row.time_ms)}`);
  return { headline, places };
}

export function ordinal(place) {
  const tens = place % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[place % 10] ?? "th";
  return `${place}${suffix}`;
}

// How much of the deal a racer has home, 0 to 1, for the progress bar.
export function homeShare(racer, cards) {
  return cards ? Math.min(1, racer.foundation / cards) : 0;
}

// "FWRDBTKR" → "FWRD-BTKR": easier to read out to a friend (dashes do not matter to the server).
export function spacedCode(code) {
  return code && code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code ?? "";
}

export function raceLink(raceId) {
  return `${window.location.origin}${window.location.pathname}#race/${encodeURIComponent(raceId)}`;
}
