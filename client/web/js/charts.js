// The geometry and the words of the stats screen's charts, apart from the
// DOM so Node can test them: a day's histogram of finishing times, the
// 12-week calendar and the day-by-day history of times.  Each chart has a
// summary sentence (its accessible name) and rows for a table a screen
// reader can walk, so what the picture says is said in words too.

import { ordinal } from "./races.js";

export const CALENDAR_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
export const CALENDAR_WORDS = { won: "won", played: "played, not won", missed: "missed", open: "still open" };
const DAY_MS = 86_400_000;

/**
 * A histogram edge in words: "3 min", "1 h" (the server's edges are whole minutes).
 * @param {number} ms the edge
 * @returns {string}
 */
export function edgeWords(ms) {
  const minutes = Math.round(ms / 60_000);
  return minutes >= 60 && minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}

/**
 * The buckets' labels in words: "under 1 min", "1–2 min" … "1 h or more".
 * @param {number[]} edgesMs the histogram's edges
 * @returns {string[]} one more than the edges
 */
export function bucketLabels(edgesMs) {
  return [...edgesMs, null].map((edge, index) => {
    if (index === 0) return `under ${edgeWords(edge)}`;
    const low = edgesMs[index - 1];
    if (edge === null) return `${edgeWords(low)} or more`;
    const [from, to] = [edgeWords(low), edgeWords(edge)];
    const unit = / (min|h)$/.exec(to)[0];
    return `${from.endsWith(unit) ? from.slice(0, -unit.length) : from}–${to}`;
  });
}

/**
 * The short labels under the bars, in minutes: "<1", "1–2" … "60+".
 * @param {number[]} edgesMs the histogram's edges
 * @returns {string[]} one more than the edges
 */
export function axisLabels(edgesMs) {
  const minutes = edgesMs.map((edge) => Math.round(edge / 60_000));
  return [`<${minutes[0]}`, ...minutes.slice(1).map((edge, index) => `${minutes[index]}–${edge}`), `${minutes.at(-1)}+`];
}

/**
 * Which bucket a time falls in: under `edges[i]` and at or over the one before.
 * @param {number[]} edgesMs the histogram's edges
 * @param {number} timeMs a finishing time
 * @returns {number} the bucket's index
 */
export function bucketOf(edgesMs, timeMs) {
  return edgesMs.filter((edge) => timeMs >= edge).length;
}

/**
 * The bars of a histogram: one per bucket, scaled to the fullest, the
 * player's own bucket marked.
 * @param {{edges_ms: number[], counts: number[], time_ms: (number|null)}} histogram the server's histogram
 * @param {{width: number, height: number, gap?: number, labelRoom?: number}} box the chart's size in SVG units
 * @returns {{x: number, y: number, width: number, height: number, count: number, label: string, axis: string, yours: boolean}[]}
 */
export function histogramBars(histogram, { width, height, gap = 4, labelRoom = 0 }) {
  const counts = histogram.counts;
  const labels = bucketLabels(histogram.edges_ms);
  const axis = axisLabels(histogram.edges_ms);
  const fullest = Math.max(1, ...counts);
  const slot = width / counts.length;
  const room = height - labelRoom;
  const yours = histogram.time_ms === null || histogram.time_ms === undefined ? -1 : bucketOf(histogram.edges_ms, histogram.time_ms);
  return counts.map((count, index) => {
    const barHeight = count === 0 ? 0 : Math.max(1, (room * count) / fullest);
    return { x: index * slot + gap / 2, y: room - barHeight, width: slot - gap, height: barHeight, count,
      label: labels[index], axis: axis[index], yours: index === yours };
  });
}

/**
 * The histogram in one sentence, for its accessible name.
 * @param {{date: string, finishers: number, place: (number|null), top_percent: (number|null)}} histogram the server's histogram
 * @returns {string}
 */
export function histogramSummary(histogram) {
  if (!histogram.finishers) return `Nobody has won the daily of ${histogram.date} yet.`;
  const who = histogram.finishers === 1 ? "1 player" : `${histogram.finishers} players`;
  const yours = histogram.place
    ? ` You are ${ordinal(histogram.place)}, in the top ${histogram.top_percent}%.`
    : "";
  return `Finishing times of the ${histogram.date} daily: ${who} won it.${yours}`;
}

function isoDay(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The calendar's cells: a column per week (oldest left), a row per
 * weekday from Monday, as on a wall calendar turned on its side.
 * @param {string} start the first day, YYYY-MM-DD (UTC)
 * @param {string[]} marks each day's mark from `start`: won, played, missed or open
 * @param {{cell: number, gap: number}} box the size of a cell and the space between cells
 * @returns {{cells: {x: number, y: number, date: string, mark: string}[], weeks: number}}
 */
export function calendarCells(start, marks, { cell, gap }) {
  const first = Date.parse(`${start}T00:00:00Z`);
  const weekday = (new Date(first).getUTCDay() + 6) % 7;
  const cells = marks.map((mark, offset) => {
    const [column, row] = [Math.floor((offset + weekday) / 7), (offset + weekday) % 7];
    return { x: column * (cell + gap), y: row * (cell + gap), date: isoDay(first + offset * DAY_MS), mark };
  });
  return { cells, weeks: Math.ceil((marks.length + weekday) / 7) };
}

/**
 * The calendar in one sentence: how many days of each kind.
 * @param {string[]} marks each day's mark: won, played, missed or open
 * @returns {string}
 */
export function calendarSummary(marks) {
  const count = (kind) => marks.filter((mark) => mark === kind).length;
  const days = (n) => (n === 1 ? "1 day" : `${n} days`);
  return `The last ${Math.round(marks.length / 7)} weeks: ${days(count("won"))} won, ${days(count("played"))} played `
    + `without a win, ${days(count("missed"))} missed.`;
}

/**
 * The day-by-day history as bars, oldest left: a won day's bar is its
 * time (scaled to the slowest shown), a day played without a win a short
 * stub at the baseline.
 * @param {{date: string, won: boolean, time_ms: (number|null), actions: (number|null)}[]} history newest first, as the server sends it
 * @param {{width: number, height: number, days: number, gap?: number}} box the chart's size and how many days it shows
 * @returns {{x: number, y: number, width: number, height: number, date: string, won: boolean, time_ms: (number|null)}[]}
 */
export function historyBars(history, { width, height, days, gap = 2 }) {
  const shown = history.slice(0, days).reverse();
  const slowest = Math.max(1, ...shown.filter((day) => day.won).map((day) => day.time_ms));
  const slot = width / Math.max(days, 1);
  return shown.map((day, index) => {
    const barHeight = day.won ? Math.max(2, (height * day.time_ms) / slowest) : 2;
    return { x: index * slot + gap / 2, y: height - barHeight, width: Math.max(1, slot - gap), height: barHeight,
      date: day.date, won: day.won, time_ms: day.won ? day.time_ms : null };
  });
}

/**
 * The history chart in one sentence.
 * @param {{won: boolean}[]} history newest first
 * @param {number} days how many days the chart shows
 * @returns {string}
 */
export function historySummary(history, days) {
  const shown = history.slice(0, days);
  if (!shown.length) return "No daily played yet.";
  const won = shown.filter((day) => day.won).length;
  return `Your last ${shown.length === 1 ? "day" : `${shown.length} days`} played: ${won} won; `
    + "each bar is a won day's time, a stub a day played without a win.";
}
