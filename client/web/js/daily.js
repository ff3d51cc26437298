// A shared daily's page (`#daily=GAME/VARIANT/DATE`, the link in a share
// text): that day's finishing times, your friends on it, your own share
// text if you played it, and, while the day is today's, a button to
// play it.  Opening the link starts nothing: a ranked attempt is
// started only by its player's click, as a friend's invite link sends
// nothing until asked.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { dailyVariants } from "./dailies.js";
import { FriendsBoard } from "./friendsboard.js";
import { histogramFigure } from "./svgcharts.js";
import { shareBox } from "./share.js";

/** A shared daily's page (route: game, variant, date); `load()` asks the server. */
export class DailyScreen {
  constructor(root, app, route) {
    this.root = root;
    this.app = app;
    this.route = route;
    this.heading = h("h1", {}, "Daily challenge");
    this.body = h("div", { class: "daily-body" });
    this.friends = null;
    root.replaceChildren(h("section", { class: "daily-screen", id: "daily-screen" },
      h("div", { class: "screen-head" }, this.heading,
        h("button", { type: "button", onclick: () => app.toLobby() }, "Lobby")),
      this.body));
  }

  destroy() {
    this.friends?.destroy();
  }

  async load() {
    const { game, variant, date } = this.route;
    try {
      const { today, variants } = await dailyVariants((message) => this.app.request(message));
      const chosen = variants.find((entry) => entry.game === game && entry.variant === variant);
      if (!chosen) {
        this.body.replaceChildren(h("p", { class: "note", role: "alert" }, "This server has no such daily."));
        return;
      }
      const day = date ?? today;
      const stats = await this.app.request({ type: "stats", game, variant, date: day });
      this.heading.textContent = `${chosen.label} · ${day}`;
      this.friends?.destroy();
      this.friends = new FriendsBoard(this.app, { fixed: { game, variant, date: day }, id: "daily-friends" });
      const playable = day === today && !stats.variants[0]?.history.some((entry) => entry.date === day);
      this.body.replaceChildren(...[
        playable ? h("div", { class: "actions" }, h("button", { type: "button", class: "primary", id: "play-daily",
          onclick: () => this.app.startGame({ game, deal: "daily", options: chosen.options, exact: true }) }, `Play ${chosen.title}'s daily`)) : null,
        shareBox(this.app, { game, variant, dates: [day] }, "daily-share"),
        h("section", { class: "panel" }, h("h2", {}, "Finishing times"), histogramFigure("daily-histogram", stats.variants[0].histogram)),
        this.friends.node].filter(Boolean));
      this.friends.refresh();
    } catch (error) {
      if (error.code !== "offline") this.body.replaceChildren(h("p", { class: "note", role: "alert" }, errorSentence(error)));
    }
  }
}
