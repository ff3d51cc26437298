// The rows of a friends' or a league's board (`friends_board`,
// `league_board`), kept in the server's order as live updates
// (`friends_board_update`) come, and said in words.  Rows carry counts
// only (cards home, actions, time): never a card, as the fair-play rules
// require while the deal is secret.

import { formatPreciseTime, formatTime } from "./dom.js";

const RESULT_WORDS = { won: "Won", lost: "Lost", resigned: "Resigned", abandoned: "Abandoned" };

// The server's order: winners by place, then those playing (most cards
// home first), the other finishers, and those not started.
function group(row) {
  if (row.state === "finished") return row.result === "won" ? 0 : 2;
  return row.state === "playing" ? 1 : 3;
}

function compare(a, b) {
  const byGroup = group(a) - group(b);
  if (byGroup) return byGroup;
  if (group(a) === 0) return (a.place ?? Infinity) - (b.place ?? Infinity) || a.time_ms - b.time_ms || a.actions - b.actions;
  if (group(a) === 1) return b.cards_home - a.cards_home;
  return 0;
}

/**
 * A board's rows with one player's row replaced by its update.  An
 * update's place is null and its `me` false (the server cannot know who
 * reads it), so the row keeps its own `me`; a row that has just finished
 * needs the board read again for the places (`reread`).
 * @param {object[]} rows the board's rows, in order
 * @param {object} row the update's row
 * @returns {{rows: object[], reread: boolean}}
 */
export function mergeRow(rows, row) {
  const id = row.player.player_id;
  const before = rows.find((known) => known.player.player_id === id);
  if (!before) return { rows, reread: true };
  const merged = { ...row, me: before.me, place: row.state === "finished" ? before.place : null };
  const reread = row.state === "finished" && (before.state !== "finished" || before.result !== row.result);
  const next = rows.map((known) => (known === before ? merged : known));
  return { rows: [...next].sort(compare), reread };
}

/**
 * A row in words: where it stands and the counts behind it.
 * @param {object} row a board row
 * @returns {{place: string, state: string, detail: string}}
 */
export function rowWords(row) {
  if (row.state === "not_started") return { place: "", state: "Not started", detail: "" };
  const actions = `${row.actions} action${row.actions === 1 ? "" : "s"}`;
  if (row.state === "playing") {
    return { place: "", state: "Playing",
      detail: `${row.cards_home} card${row.cards_home === 1 ? "" : "s"} home · ${actions} · ${formatTime(row.time_ms)} so far` };
  }
  return { place: row.place ? String(row.place) : "", state: RESULT_WORDS[row.result] ?? row.result,
    detail: `${formatPreciseTime(row.time_ms)} · ${actions}` };
}
