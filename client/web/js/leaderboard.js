// The daily leaderboards panel of the lobby: one board per game, variant
// and UTC day, its top entries, your own row (after a gap when you are
// further down, with where that puts you among the winners), then the
// day's ranked attempts still being played, which have no rank yet.
//
// The variants come from the server (`daily` lists each variant's deal of
// the day with its options, or as pending while it is being proven), so
// a variant added there shows up here
// without a change.  The panel keeps its own element across the lobby's
// redraws, so a choice made here survives a refresh of the live games.

import { h, formatPreciseTime, formatTime } from "./dom.js";
import { unlistedSentence } from "./unlisted.js";
import { errorSentence } from "./errors.js";
import { describeOptions } from "./games.js";

const CHOICE_KEY = "arena.leaderboard";
const TOP = 10;

export class LeaderboardPanel {
  // `showPlayer(playerId)`: a name in the table was clicked.
  constructor(request, showPlayer) {
    this.request = request;
    this.showPlayer = showPlayer;
    this.variants = null;
    this.today = null;
    this.date = null;
    this.variant = localStorage.getItem(CHOICE_KEY);
    this.page = null;
    this.problem = null;
    this.node = h("section", { class: "panel leaderboard", id: "leaderboard" });
    this.render();
  }

  // Fetch the variants (once) and the chosen board; never throws.
  async refresh() {
    try {
      if (this.variants === null) {
        const info = await this.request({ type: "daily" });
        this.today = info.today;
        // A fresh server may still be proving some of today's deals
        // (`pending`): their boards exist all the same.
        this.variants = [...info.deals, ...(info.pending ?? [])].map((deal) => ({
          key: `${deal.game}/${deal.variant}`, game: deal.game, options: deal.options,
          label: [deal.title, describeOptions(deal.options)].filter(Boolean).join(" · "),
        }));
      }
      const chosen = this.chosen();
      if (!chosen) return;
      this.page = await this.request({ type: "leaderboard", game: chosen.game, options: chosen.options,
        date: this.date ?? this.today, limit: TOP, playing: true });
      this.problem = null;
    } catch (error) {
      if (error.code !== "offline") this.problem = errorSentence(error);
    } finally {
      this.render();
    }
  }

  chosen() {
    if (!this.variants?.length) return null;
    return this.variants.find((variant) => variant.key === this.variant) ?? this.variants[0];
  }

  choose(key) {
    this.variant = key;
    localStorage.setItem(CHOICE_KEY, key);
    this.page = null;
    this.refresh();
  }

  render() {
    const chosen = this.chosen();
    const select = h("select", { id: "leaderboard-variant", "aria-label": "Game and variant",
      onchange: (event) => this.choose(event.target.value) },
      (this.variants ?? []).map((variant) => h("option", { value: variant.key }, variant.label)));
    if (chosen) select.value = chosen.key;
    const date = h("input", { type: "date", id: "leaderboard-date", "aria-label": "Day (UTC)",
      value: this.date ?? this.today ?? "", max: this.today ?? undefined,
      onchange: (event) => { this.date = event.target.value || null; this.page = null; this.refresh(); } });
    this.node.replaceChildren(
      h("h2", {}, "Daily leaderboards"),
      h("div", { class: "options" }, select, date,
        h("button", { type: "button", id: "leaderboard-refresh", onclick: () => this.refresh() }, "Refresh")),
      this.problem ? h("p", { class: "note", role: "alert" }, this.problem) : this.table());
  }

  table() {
    const page = this.page;
    if (page === null) return h("p", { class: "note" }, "Loading the leaderboard…");
    const mine = page.me;
    const row = (entry) => h("tr", { class: mine?.rank === entry.rank ? "me" : null,
      dataset: { rank: String(entry.rank) } },
      h("td", {}, String(entry.rank)),
      h("th", { scope: "row" }, this.nameButton(entry)),
      h("td", {}, formatPreciseTime(entry.time_ms)),
      h("td", {}, String(entry.actions)));
    const listed = mine !== null && page.entries.some((entry) => entry.rank === mine.rank);
    const rows = page.entries.map(row);
    if (mine !== null && !listed) {
      rows.push(h("tr", { class: "gap", "aria-hidden": "true" }, h("td", { colspan: "4" }, "⋯")), row(mine));
    }
    const apart = page.me_unranked;
    const among = page.total ? ` of ${page.total}` : "";
    const share = page.me_percentile ? `, as good as or better than ${page.me_percentile}% of the wins` : "";
    const yours = mine !== null
      ? `Your rank: ${mine.rank}${among} (${formatPreciseTime(mine.time_ms)}, ${mine.actions} actions)${share}.`
      : apart ? `Your win (${formatPreciseTime(apart.time_ms)}, ${apart.actions} actions): ${unlistedSentence([apart.reason])}`
        : "You have no ranked win on this board.";
    const playing = page.playing ?? [];
    // Wins from a network whose public place another attempt took: shown apart, unranked.
    const unranked = page.unranked ?? [];
    return h("div", {},
      page.entries.length || playing.length
        ? h("table", { class: "racers ranking", id: "leaderboard-table" },
          h("caption", {}, `${page.title} · ${page.date} (UTC)`),
          h("thead", {}, h("tr", {}, ["Rank", "Player", "Time", "Actions"].map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, rows),
          playing.length ? this.playingRows(playing) : null)
        : null,
      page.entries.length ? null : h("p", { class: "note" }, `Nobody has won ${page.title}'s daily deal of ${page.date} yet.`),
      unranked.length
        ? h("ul", { id: "leaderboard-apart", class: "note", "aria-label": "Same network, unranked" },
          unranked.map((entry) => h("li", {},
            `${entry.name} · ${formatPreciseTime(entry.time_ms)} · ${entry.actions} actions · same network`)))
        : null,
      h("p", { id: "leaderboard-me", class: "note" }, yours));
  }

  nameButton(entry) {
    return h("button", { type: "button", class: "link", title: `${entry.name}'s records`,
      onclick: () => this.showPlayer(entry.player_id) }, entry.name);
  }

  // Attempts not finished yet: no rank, the clock so far and the cards home.
  playingRows(playing) {
    return h("tbody", { id: "leaderboard-playing" },
      h("tr", {}, h("th", { scope: "rowgroup", colspan: "4", class: "group" }, `Still playing (${playing.length})`)),
      playing.map((entry) => h("tr", { dataset: { playing: entry.player_id } },
        h("td", {}, "–"),
        h("th", { scope: "row" }, this.nameButton(entry)),
        h("td", {}, `${formatTime(entry.time_ms)} so far`),
        h("td", {}, `${entry.actions} · ${entry.cards_home} home`))));
  }
}
