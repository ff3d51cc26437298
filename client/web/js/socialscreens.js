// The screens of the daily among friends, as main.js's render functions:
// your stats (`#stats`), your leagues (`#leagues`, `#league=CODE`) and a
// shared daily's page (`#daily=GAME/VARIANT/DATE`).  Each is built on
// entering and read from the server by its `load()`, which the page calls
// once online and again after every reconnection.
//
// They are imported with the page, not when first opened: the server
// serves every module of the page as one script (server/transport/bundle.py),
// which takes static imports only, so a lazy import() would save nothing
// there and break the bundle.

import { DailyScreen } from "./daily.js";
import { LeaguesScreen } from "./leagues.js";
import { StatsScreen } from "./stats.js";

const screen = (Screen) => (app, state, entering) => {
  if (entering) app.screen = new Screen(app.main, app, state.route);
};

export const SOCIAL_SCREENS = { stats: screen(StatsScreen), leagues: screen(LeaguesScreen), daily: screen(DailyScreen) };
