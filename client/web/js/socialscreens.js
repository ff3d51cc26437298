// The screens of the daily among friends, as main.js's render functions:
// your stats (`#stats`), your leagues (`#leagues`, `#league=CODE`) and a
// shared daily's page (`#daily=GAME/VARIANT/DATE`).  Each is built on
// entering and read from the server by its `load()`, which the page calls
// once online and again after every reconnection.
//
// Their modules (the charts among them) are fetched when one of them is
// first opened, not with the page: a page load fetches every module it
// imports, and most visits never open these screens.

import { h } from "./dom.js";

const MODULES = {
  stats: () => import("./stats.js").then((module) => module.StatsScreen),
  leagues: () => import("./leagues.js").then((module) => module.LeaguesScreen),
  daily: () => import("./daily.js").then((module) => module.DailyScreen),
};

// Stands for a screen whose module is on its way: the page may ask it to
// load or go away before the module has come.
class LazyScreen {
  constructor(kind, app, route) {
    this.screen = null;
    this.loadAsked = false;
    this.gone = false;
    app.main.replaceChildren(h("p", { class: "note" }, "Loading…"));
    MODULES[kind]().then((Screen) => {
      if (this.gone) return;
      this.screen = new Screen(app.main, app, route);
      if (this.loadAsked) this.screen.load();
    }, () => app.toast("This page could not be loaded; reload the page to try again."));
  }

  load() {
    if (this.screen) this.screen.load();
    else this.loadAsked = true;
  }

  destroy() {
    this.gone = true;
    this.screen?.destroy?.();
  }
}

const lazy = (kind) => (app, state, entering) => {
  if (entering) app.screen = new LazyScreen(kind, app, state.route);
};

export const SOCIAL_SCREENS = { stats: lazy("stats"), leagues: lazy("leagues"), daily: lazy("daily") };
