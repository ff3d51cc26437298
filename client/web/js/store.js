// The page's one state store: everything the screens draw from (the
// route, who you are, the games and races mirrored, the lobby's lists)
// lives here, and a change notifies the listeners, which re-render.
//
// Why one store: before it, each screen kept its own copy and called back
// into the page to learn the rest, so a change (a welcome, a finished
// game) had to be pushed to every screen by hand.

export class Store {
  constructor(initial) {
    this.state = { ...initial };
    this.listeners = new Set();
  }

  // Merge `patch` into the state and tell every listener which keys changed.
  update(patch) {
    const changed = Object.keys(patch).filter((key) => this.state[key] !== patch[key]);
    if (!changed.length) return;
    this.state = { ...this.state, ...patch };
    for (const listener of [...this.listeners]) listener(this.state, new Set(changed));
  }

  // Call `listener(state, changedKeys)` after each change; returns the unsubscribe.
  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
