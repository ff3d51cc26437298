// How each game of yours was dealt (kept in localStorage), so Game
// Options can restart the same deal number with other options.

const DEALS_KEY = "arena.deals";
const KEPT = 20;

function loadDeals() {
  try {
    return JSON.parse(localStorage.getItem(DEALS_KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

export function rememberDeal(gameId, spec) {
  const deals = loadDeals();
  deals[gameId] = spec;
  const ids = Object.keys(deals);
  for (const old of ids.slice(0, Math.max(0, ids.length - KEPT))) delete deals[old];
  localStorage.setItem(DEALS_KEY, JSON.stringify(deals));
}

export function dealOf(gameId) {
  return loadDeals()[gameId] ?? null;
}

// A deal number the browser picks itself (games whose number it must
// know to restart it), uniformly from the game's range.
export function randomDeal(meta) {
  const values = new Uint32Array(1);
  crypto.getRandomValues(values);
  return meta.firstDeal + (values[0] % (meta.lastDeal - meta.firstDeal + 1));
}
