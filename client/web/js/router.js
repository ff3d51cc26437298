// The address is the route: `#lobby`, `#play/<game id>` (your game),
// `#watch/<game id>` (someone else's, read-only), `#replay/<game id>` (a
// finished game, step by step) and `#race/<race id>`,
// so a reload or a shared link lands on the same screen.  A friend's
// invite link, `#friend=<friend code>`, is the lobby offering to send
// that friend request (the page asks first: opening a link sends nothing).

const ROUTE = /^#(play|watch|replay|race)\/(.+)$/;
const FRIEND_INVITE = /^#friend=([A-Za-z0-9-]{1,40})$/;

// The route of a location hash; anything unknown or malformed (`#race/%zz`) is the lobby.
export function parseRoute(hash) {
  const invite = FRIEND_INVITE.exec(hash ?? "");
  if (invite) return { kind: "lobby", friendCode: invite[1].toUpperCase() };
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
  return "#lobby";
}

// Whether two routes show the same screen (a re-render, not a new screen).
export function sameRoute(a, b) {
  return a !== null && b !== null && routeHash(a) === routeHash(b);
}
