// One league on the leagues screen: its invite (code, link to copy, a
// new code for the owner), its members (the owner removes them; anyone
// leaves), the daily board of one of its variants and the weekly
// standings with the past weeks' winners.
//
// The board and the standings are read when the league is shown and on
// Refresh: the server does not push a league's board (docs/social.md),
// and a league's day changes slowly enough for that.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { groupedCode, typedCode } from "./friends.js";
import { boardTable } from "./friendsboard.js";

function copyable(link) {
  return `${window.location.origin}${link}`;
}

/** One league shown on the leagues screen; `show(league)` draws it and reads its board and standings. */
export class LeagueView {
  // `actions.changed(league)`: the league as the server now has it;
  // `actions.left(leagues)`: your leagues after leaving one;
  // `actions.reload()`: read your leagues again (members change elsewhere).
  constructor(app, actions) {
    this.app = app;
    this.actions = actions;
    this.variants = [];
    this.league = null;
    this.variantKey = null;
    this.week = null;
    this.board = null;
    this.standings = null;
    this.node = h("section", { class: "panel league", id: "league", hidden: true });
  }

  get owner() {
    return this.league !== null && this.league.owner.player_id === this.app.playerId();
  }

  complain(error) {
    if (error.code !== "offline") this.app.toast(errorSentence(error));
  }

  show(league) {
    const another = league?.league_id !== this.league?.league_id;
    this.league = league;
    this.node.hidden = league === null;
    if (another) {
      this.variantKey = league ? `${league.variants[0].game}/${league.variants[0].variant}` : null;
      this.week = null;
      this.board = null;
      this.standings = null;
      if (league) this.refresh();
    }
    this.render();
  }

  // The board of the chosen variant and the chosen week's standings.
  async refresh() {
    const league = this.league;
    const variant = this.variants.find((known) => known.key === this.variantKey);
    const week = this.week ? { week: this.week } : {};
    try {
      const [board, standings] = await Promise.all([
        this.app.request({ type: "league_board", league_id: league.league_id,
          ...(variant ? { game: variant.game, options: variant.options } : {}) }),
        this.app.request({ type: "league_standings", league_id: league.league_id, ...week }),
      ]);
      if (league.league_id !== this.league?.league_id) return;
      this.board = board;
      this.standings = standings;
    } catch (error) {
      this.complain(error);
    }
    this.render();
  }

  async act(message, then) {
    try {
      then(await this.app.request(message));
    } catch (error) {
      this.complain(error);
    }
  }

  async copy() {
    const link = copyable(this.league.link);
    try {
      await navigator.clipboard.writeText(link);
      this.app.toast("Invite link copied: send it to the friends you want in the league.");
    } catch {
      this.app.toast(`The league's invite link: ${link}`);
    }
  }

  render() {
    const league = this.league;
    if (!league) {
      this.node.replaceChildren();
      return;
    }
    const id = league.league_id;
    this.node.replaceChildren(
      h("h2", { id: "league-title" }, league.name),
      h("p", { class: "note" }, `Owner: ${league.owner.name} · plays ${league.variants
        .map((variant) => this.variants.find((known) => known.key === `${variant.game}/${variant.variant}`)?.label ?? variant.variant)
        .join(", ")}`),
      h("div", { class: "own-code" },
        h("p", {}, "Invite code: ", h("strong", { id: "league-code", class: "code" }, groupedCode(typedCode(league.code)))),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "small", id: "copy-league-link", onclick: () => this.copy() }, "Copy invite link"),
          this.owner ? h("button", { type: "button", class: "small", id: "reissue-league-code",
            onclick: () => this.act({ type: "league_code", league_id: id }, (reply) => this.actions.changed(reply.league)) }, "New code") : null,
          h("button", { type: "button", class: "small", id: "leave-league",
            onclick: () => this.act({ type: "leave_league", league_id: id }, (reply) => this.actions.left(reply.leagues)) }, "Leave league"))),
      this.members(),
      this.boardSection(),
      this.standingsSection());
  }

  members() {
    const me = this.app.playerId();
    return h("details", { class: "members", open: true }, h("summary", {}, `Members (${this.league.members.length})`),
      h("ul", { class: "friend-list", id: "league-members" }, this.league.members.map((member) => h("li",
        { dataset: { player: member.player.player_id } },
        h("span", { class: "friend-who" }, h("strong", {}, member.player.name),
          h("small", {}, member.player.player_id === this.league.owner.player_id ? "owner" : `joined ${new Date(member.joined_ms).toISOString().slice(0, 10)}`)),
        this.owner && member.player.player_id !== me
          ? h("button", { type: "button", class: "small", dataset: { remove: member.player.player_id },
            onclick: () => this.act({ type: "remove_league_member", league_id: this.league.league_id, player_id: member.player.player_id },
              (reply) => this.actions.changed(reply.league)) }, "Remove")
          : null))));
  }

  boardSection() {
    const select = h("select", { id: "league-variant", "aria-label": "League variant", onchange: (event) => {
      this.variantKey = event.target.value;
      this.refresh();
    } }, this.league.variants.map((variant) => {
      const key = `${variant.game}/${variant.variant}`;
      return h("option", { value: key }, this.variants.find((known) => known.key === key)?.label ?? key);
    }));
    select.value = this.variantKey;
    const board = this.board;
    return h("section", { class: "league-board" }, h("h3", {}, "Today"),
      h("div", { class: "options" }, select, h("button", { type: "button", id: "league-refresh",
        onclick: () => { this.actions.reload(); this.refresh(); } }, "Refresh")),
      board === null ? h("p", { class: "note" }, "Loading the league's board…")
        : boardTable("league-board", `${board.title} · ${board.date} (UTC)`, board.rows));
  }

  standingsSection() {
    const standings = this.standings;
    if (standings === null) return null;
    const weeks = [...new Set([standings.week, ...standings.weeks.map((week) => week.week)])];
    const select = h("select", { id: "league-week", "aria-label": "Week", onchange: (event) => {
      this.week = event.target.value;
      this.refresh();
    } }, weeks.map((week) => h("option", { value: week }, week)));
    select.value = standings.week;
    const past = standings.weeks.filter((week) => week.winners.length);
    return h("section", { class: "league-standings" },
      h("h3", {}, "Week standings"),
      h("div", { class: "options" }, select),
      h("table", { class: "racers ranking", id: "league-standings" },
        h("caption", {}, `${standings.week}, from ${standings.first_day}${standings.final ? " (final)" : " (so far)"}`),
        h("thead", {}, h("tr", {}, ["#", "Player", "Points", "Days won", "Days played"].map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, standings.rows.map((row) => h("tr", { class: row.player.player_id === this.app.playerId() ? "me" : null,
          dataset: { player: row.player.player_id } },
          h("td", {}, String(row.place)), h("th", { scope: "row" }, row.player.name), h("td", {}, String(row.points)),
          h("td", {}, String(row.wins)), h("td", {}, String(row.played)))))),
      past.length ? h("ul", { class: "note", id: "league-winners", "aria-label": "Past weeks' winners" },
        past.map((week) => h("li", {}, `${week.week}: ${week.winners.map((winner) => winner.name).join(", ")}`))) : null);
  }
}
