// The stats screen (`#stats`): per daily variant, your days played and
// won, current and longest streak, best and median time, the day-by-day
// history, today's finishing times with your place, and the last 12
// weeks; with the share text of your last attempt, today's or yesterday's.
//
// One variant shows at a time (a phone would otherwise scroll through
// every variant's three charts): the one chosen last, else the one you
// played most recently.  Everything comes from one `stats` request, the
// server's own count (docs/protocol.md, "Streaks and stats").

import { h, formatPreciseTime, formatTime } from "./dom.js";
import { errorSentence } from "./errors.js";
import { calendarFigure, histogramFigure, historyFigure } from "./svgcharts.js";
import { dayBefore, shareBox } from "./share.js";
import { dailyVariants } from "./dailies.js";

const CHOICE_KEY = "arena.stats";

/**
 * The variant to show first: the remembered choice, else the one with
 * the newest day played, else the first.
 * @param {{game: string, variant: string, history: {date: string}[]}[]} variants the stats reply's variants
 * @param {string|null} remembered a `game/variant` key chosen before
 * @returns {string|null} a `game/variant` key, null without variants
 */
export function firstVariant(variants, remembered) {
  const key = (stats) => `${stats.game}/${stats.variant}`;
  const kept = variants.find((stats) => key(stats) === remembered);
  if (kept) return key(kept);
  const played = variants.filter((stats) => stats.history.length)
    .sort((a, b) => b.history[0].date.localeCompare(a.history[0].date));
  return variants.length ? key(played[0] ?? variants[0]) : null;
}

/** The `#stats` screen; `load()` asks the server. */
export class StatsScreen {
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.reply = null;
    this.labels = new Map();
    this.problem = null;
    this.chosen = null;
    this.body = h("div", { class: "stats-body" });
    root.replaceChildren(h("section", { class: "stats-screen", id: "stats-screen" },
      h("div", { class: "screen-head" }, h("h1", {}, "Your daily stats"),
        h("button", { type: "button", onclick: () => app.toLobby() }, "Lobby")),
      this.body));
    this.render();
  }

  async load() {
    try {
      const [reply, daily] = await Promise.all([this.app.request({ type: "stats" }),
        dailyVariants((message) => this.app.request(message)).catch(() => ({ variants: [] }))]);
      this.reply = reply;
      this.labels = new Map(daily.variants.map((variant) => [variant.key, variant.label]));
      this.chosen = firstVariant(reply.variants, this.chosen ?? localStorage.getItem(CHOICE_KEY));
      this.problem = null;
    } catch (error) {
      if (error.code !== "offline") this.problem = errorSentence(error);
    }
    this.render();
  }

  choose(key) {
    this.chosen = key;
    localStorage.setItem(CHOICE_KEY, key);
    this.render();
  }

  render() {
    if (this.problem) {
      this.body.replaceChildren(h("p", { class: "note", role: "alert" }, this.problem));
      return;
    }
    if (!this.reply) {
      this.body.replaceChildren(h("p", { class: "note" }, "Loading your stats…"));
      return;
    }
    const key = (stats) => `${stats.game}/${stats.variant}`;
    const select = h("select", { id: "stats-variant", "aria-label": "Game and variant",
      onchange: (event) => this.choose(event.target.value) },
    this.reply.variants.map((stats) => h("option", { value: key(stats) },
      this.labels.get(key(stats)) ?? `${stats.title} · ${stats.variant}`)));
    const stats = this.reply.variants.find((entry) => key(entry) === this.chosen);
    if (stats) select.value = this.chosen;
    this.body.replaceChildren(h("div", { class: "options" }, select),
      stats ? variantStats(this.app, stats, this.reply.today) : h("p", { class: "note" }, "No daily variants yet."));
  }
}

function summaryList(stats) {
  const time = (ms) => (ms === null ? "–" : formatPreciseTime(ms));
  const rows = [["Days played", stats.played], ["Days won", stats.won], ["Current streak", stats.current_streak],
    ["Longest streak", stats.longest_streak], ["Best time", time(stats.best_time_ms)], ["Median time", time(stats.median_time_ms)]];
  return h("dl", { class: "stats summary", id: "stats-summary" }, rows.map(([label, value]) => h("div",
    { dataset: { stat: label.toLowerCase().replace(/ /g, "-") } }, h("dt", {}, label), h("dd", {}, String(value)))));
}

// Every day played, newest first, folded away: the chart above shows the
// last 30 at a glance, the table has them all in words.
function historyTable(history) {
  if (!history.length) return null;
  return h("details", { class: "history" }, h("summary", {}, `Day by day (${history.length})`),
    h("table", { class: "racers", id: "stats-history" },
      h("thead", {}, h("tr", {}, ["Day", "Result", "Time", "Actions"].map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, history.map((day) => h("tr", {}, h("td", {}, day.date), h("td", {}, day.won ? "Won" : "Not won"),
        h("td", {}, day.time_ms === null ? "–" : formatTime(day.time_ms)),
        h("td", {}, day.actions === null ? "–" : String(day.actions)))))));
}

function variantStats(app, stats, today) {
  // Today's result, or yesterday's while today's is not played yet.
  const last = stats.history[0]?.date;
  const recent = last === today || last === dayBefore(today);
  return h("article", { class: "variant-stats", dataset: { variant: `${stats.game}/${stats.variant}` } },
    summaryList(stats),
    recent ? shareBox(app, { game: stats.game, variant: stats.variant, dates: [last] }, "stats-share") : null,
    h("div", { class: "charts" },
      h("section", {}, h("h2", {}, "Today's finishing times"), histogramFigure("stats-histogram", stats.histogram)),
      h("section", {}, h("h2", {}, "The last 12 weeks"), calendarFigure("stats-calendar", stats)),
      h("section", {}, h("h2", {}, "Your times"), historyFigure("stats-times", stats.history), historyTable(stats.history))));
}
