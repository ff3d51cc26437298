// The leagues screen (`#leagues`; a league's invite link `#league=CODE`
// lands here offering to join): your leagues, one shown at a time
// (leagueview.js: its invite, members, daily board and weekly standings),
// a form to join one by code and one to create one with the daily
// variants it plays (drawn once, so a redraw never loses what is typed).
//
// Opening an invite link joins nothing until asked, as a friend's invite
// link sends no request until asked: a link can be opened by anyone it
// was forwarded to.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { groupedCode, typedCode } from "./friends.js";
import { dailyVariants } from "./dailies.js";
import { LeagueView } from "./leagueview.js";

const NAME_MAX = 40;

/** The `#leagues` screen (route: `leagueCode` from an invite link); `load()` asks the server. */
export class LeaguesScreen {
  constructor(root, app, route) {
    this.root = root;
    this.app = app;
    this.offeredCode = route.leagueCode ?? null;
    this.leagues = null;
    this.variants = [];
    this.chosenId = null;
    this.view = new LeagueView(app, {
      changed: (league) => this.replaced(league),
      left: (leagues) => this.listed(leagues),
      reload: () => this.load(),
    });
    this.slots = { offer: h("div"), list: h("div"), create: h("div") };
    this.codeInput = h("input", { id: "league-code-input", maxlength: 20, autocomplete: "off", spellcheck: "false",
      autocapitalize: "characters", placeholder: "League code, e.g. 7KQ2-M9XD", "aria-label": "League code" });
    root.replaceChildren(h("section", { class: "leagues-screen", id: "leagues-screen" },
      h("div", { class: "screen-head" }, h("h1", {}, "Leagues"),
        h("button", { type: "button", onclick: () => app.toLobby() }, "Lobby")),
      this.slots.offer, this.slots.list, this.view.node,
      h("div", { class: "league-forms" },
        h("section", { class: "panel" }, h("h2", {}, "Join a league"),
          h("form", { class: "join-league", onsubmit: (event) => {
            event.preventDefault();
            const code = typedCode(this.codeInput.value);
            if (code) this.join(code);
          } }, this.codeInput, h("button", { type: "submit", id: "join-league" }, "Join"))),
        this.slots.create)));
    this.render();
  }

  async load() {
    try {
      const [{ leagues }, daily] = await Promise.all([this.app.request({ type: "leagues" }),
        dailyVariants((message) => this.app.request(message))]);
      this.variants = daily.variants;
      this.view.variants = daily.variants;
      this.slots.create.replaceChildren(this.createForm());
      this.listed(leagues);
    } catch (error) {
      this.complain(error);
    }
  }

  complain(error) {
    if (error.code !== "offline") this.app.toast(errorSentence(error));
  }

  // A new list of leagues (after a leave, or the first read): the chosen
  // one stays shown if it is still yours.
  listed(leagues) {
    this.leagues = leagues;
    if (!leagues.some((league) => league.league_id === this.chosenId)) this.chosenId = leagues[0]?.league_id ?? null;
    this.view.show(leagues.find((league) => league.league_id === this.chosenId) ?? null);
    this.render();
  }

  // One league as the server now has it (created, joined, a new code, a member removed).
  replaced(league) {
    const others = (this.leagues ?? []).filter((known) => known.league_id !== league.league_id);
    this.leagues = [league, ...others];
    this.chosenId = league.league_id;
    this.view.show(league);
    this.render();
  }

  async join(code) {
    try {
      const reply = await this.app.request({ type: "join_league", code });
      this.codeInput.value = "";
      this.dismissOffer();
      this.app.toast(`You joined ${reply.league.name}.`);
      this.replaced(reply.league);
    } catch (error) {
      this.complain(error);
    }
  }

  dismissOffer() {
    this.offeredCode = null;
    if (window.location.hash.startsWith("#league=")) window.history.replaceState(null, "", "#leagues");
    this.render();
  }

  async create(name, variants) {
    try {
      const reply = await this.app.request({ type: "create_league", name,
        variants: variants.map((variant) => ({ game: variant.game, options: variant.options })) });
      this.replaced(reply.league);
    } catch (error) {
      this.complain(error);
    }
  }

  render() {
    const fill = (slot, content) => this.slots[slot].replaceChildren(...[content].filter(Boolean));
    fill("offer", this.offeredCode && h("div", { class: "panel invite-offer", id: "league-offer", role: "region",
      "aria-label": "League invitation" },
    h("p", {}, "You were invited to a league with the code ", h("strong", { class: "code" }, groupedCode(typedCode(this.offeredCode))), "."),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "primary", id: "accept-league", onclick: () => this.join(this.offeredCode) }, "Join it"),
      h("button", { type: "button", onclick: () => this.dismissOffer() }, "Not now"))));
    fill("list", this.list());
  }

  list() {
    if (this.leagues === null) return h("p", { class: "note" }, "Loading your leagues…");
    if (!this.leagues.length) {
      return h("p", { class: "note", id: "no-leagues" }, "You are in no league yet: create one below and invite your friends, or join one by its code.");
    }
    return h("nav", { class: "league-tabs", "aria-label": "Your leagues" }, h("ul", { id: "league-list" },
      this.leagues.map((league) => h("li", {}, h("button", { type: "button", dataset: { league: league.league_id },
        "aria-current": league.league_id === this.chosenId ? "true" : null, class: league.league_id === this.chosenId ? "chosen" : null,
        onclick: () => { this.chosenId = league.league_id; this.view.show(league); this.render(); } }, league.name)))));
  }

  createForm() {
    const name = h("input", { id: "league-name", maxlength: NAME_MAX, required: true, placeholder: "League name",
      "aria-label": "League name" });
    const boxes = this.variants.map((variant, index) => h("label", { class: "switch" },
      h("input", { type: "checkbox", value: variant.key, checked: index === 0, dataset: { variant: variant.key } }), ` ${variant.label}`));
    return h("section", { class: "panel" }, h("h2", {}, "Create a league"),
      h("form", { class: "create-league", onsubmit: (event) => {
        event.preventDefault();
        const keys = new Set(boxes.map((box) => box.querySelector("input")).filter((input) => input.checked).map((input) => input.value));
        const chosen = this.variants.filter((variant) => keys.has(variant.key));
        if (!name.value.trim()) return;
        if (!chosen.length) {
          this.app.toast("Choose at least one daily variant for the league to play.");
          return;
        }
        this.create(name.value.trim(), chosen);
        name.value = "";
      } },
      name,
      h("fieldset", {}, h("legend", {}, "Daily variants it plays"), boxes),
      h("button", { type: "submit", id: "create-league", class: "primary" }, "Create league")));
  }
}
