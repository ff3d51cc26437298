// The address is the route: `#lobby`, `#play/<game id>` (your game),
// `#watch/<game id>` (someone else's, read-only), `#replay/<game id>` (a
// finished game, step by step), `#race/<race id>`, `#stats` (your daily
// stats) and `#leagues`,
// so a reload or a shared link lands on the same screen.  A friend's
// invite link, `#friend=<friend code>`, is the lobby offering to send
// that friend request (the page asks first: opening a link sends nothing);
// a league's, `#league=<code>`, is the leagues screen offering to join.
// A shared result's link, `#daily=<game>/<variant>/<YYYY-MM-DD>` (the
// server's share link), is that daily's page.

const ROUTE = /^#(play|watch|replay|race)\/(.+)$/;
const FRIEND_INVITE = /^#friend=([A-Za-z0-9-]{1,40})$/;
const LEAGUE_INVITE = /^#league=([A-Za-z0-9-]{1,40})$/;
const DAILY = /^#daily=([a-z0-9-]{1,40})\/([A-Za-z0-9=,._-]{1,200})\/(\d{4}-\d{2}-\d{2})$/;
const SCREENS = new Set(["#stats", "#leagues"]);

// The route of a location hash; anything unknown or malformed (`#race/%zz`) is the lobby.
export function parseRoute(hash) {
  const invite = FRIEND_INVITE.exec(hash ?? "");
  if (invite) return { kind: "lobby", friendCode: invite[1].toUpperCase() };
  const league = LEAGUE_INVITE.exec(hash ?? "");
  if (league) return { kind: "leagues", leagueCode: league[1].toUpperCase() };
  const daily = DAILY.exec(hash ?? "");
  if (daily) return { kind: "daily", game: daily[1], variant: daily[2], date: daily[3] };
  if (SCREENS.has(hash)) return { kind: hash.slice(1) };
  const match = ROUTE.exec(hash ?? "");
  if (!match) return { kind: "lobby" };
  let id;
  try {
    id = decodeURIComponent(match[2]);
  } catch {
    return { kind: "lobby" };
  }
  return match[1] === "race" ? { kind: "race", raceId: id } : { kind: match[1], gameId: id };
}

export function routeHash(route) {
  if (route.kind === "race") return `#race/${encodeURIComponent(route.raceId)}`;
  if (route.kind === "play" || route.kind === "watch" || route.kind === "replay") return `#${route.kind}/${encodeURIComponent(route.gameId)}`;
  if (route.kind === "daily") return `#daily=${route.game}/${route.variant}/${route.date}`;
  if (route.kind === "stats" || route.kind === "leagues") return `#${route.kind}`;
  return "#lobby";
}

// Whether two routes show the same screen (a re-render, not a new screen).
export function sameRoute(a, b) {
  return a !== null && b !== null && routeHash(a) === routeHash(b);
}
