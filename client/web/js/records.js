// The lobby's records panel: every game and variant you finished outside
// practice, with wins, bests and WordLink's Vegas earnings; or, after a
// click on a name in the leaderboard, that player's (records are public).
//
// Like the leaderboard panel it keeps its own element across the lobby's
// redraws and is refreshed with the lobby (after each game you come back
// to the lobby, so the panel is current when you look at it).

import { h, formatTime } from "./dom.js";
import { errorSentence } from "./errors.js";

export class RecordsPanel {
  constructor(request) {
    this.request = request;
    this.reply = null;
    this.problem = null;
    this.playerId = null;
    this.node = h("section", { class: "panel records", id: "records" });
    this.render();
  }

  // Show someone's records (null: yours) and bring the panel into view.
  show(playerId) {
    this.playerId = playerId;
    this.reply = null;
    this.refresh();
    this.node.scrollIntoView?.({ block: "nearest" });
  }

  // Fetch the records shown; never throws.
  async refresh() {
    try {
      this.reply = await this.request(this.playerId === null
        ? { type: "records" } : { type: "records", player_id: this.playerId });
      this.problem = null;
    } catch (error) {
      if (error.code !== "offline") this.problem = errorSentence(error);
    } finally {
      this.render();
    }
  }

  render() {
    const heading = this.playerId === null ? "Your records" : `Records of ${this.reply?.name ?? "…"}`;
    this.node.replaceChildren(h("div", {}, h("h2", {}, heading),
      this.playerId === null ? null
        : h("button", { type: "button", id: "records-mine", onclick: () => this.show(null) }, "Your records"),
      this.problem ? h("p", { class: "note", role: "alert" }, this.problem) : this.table()));
  }

  table() {
    const reply = this.reply;
    if (reply === null) return h("p", { class: "note" }, "Loading the records…");
    if (!reply.records.length) {
      return h("p", { class: "note" }, "No finished games yet: records count every game but practice.");
    }
    const rows = reply.records.map((record) => h("tr", { dataset: { record: `${record.game}/${record.variant}` } },
      h("th", { scope: "row" }, `${record.title} · ${variantWords(record.variant)}`),
      h("td", {}, `${record.wins}/${record.games}`),
      h("td", {}, record.best_time_ms === null ? "–" : formatTime(record.best_time_ms)),
      h("td", {}, record.best_moves === null ? "–" : String(record.best_moves)),
      h("td", {}, record.best_score === null ? "–" : String(record.best_score))));
    return h("div", {},
      h("div", { class: "table-scroll" }, h("table", { class: "racers", id: "records-table" },
        h("thead", {}, h("tr", {}, ["Game", "Won", "Best time", "Best moves", "Best score"]
          .map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, rows))),
      reply.vegas_earnings ? h("p", { class: "note", id: "vegas-earnings" },
        `WordLink Vegas earnings: ${reply.vegas_earnings}`) : null);
  }
}

// "draw=3,scoring=vegas" → "draw 3, vegas".
function variantWords(variant) {
  if (variant === "default") return "standard";
  return variant.split(",").map((pair) => {
    const [name, value] = pair.split("=");
    return name === "draw" ? `draw ${value}` : value;
  }).join(", ");
}
