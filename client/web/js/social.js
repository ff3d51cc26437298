// Friends, their presence and notifications for the page: what the
// server says of them, kept here, drawn by the friends panel
// (friendspanel.js) and the notification list (notices.js).  The page
// says it is away while its tab is hidden.
//
// After every welcome the page asks for the friends list and the inbox
// (notifications that waited while this player was away come that way,
// and the unread ones are pushed again), and the lobby asks for the list
// on each refresh; a `notification` push updates both, since a request
// or an accepted one changes the list.  A challenge is a race the
// challenger hosts at once: the challenger lands in its lobby on sending
// it, the friend on accepting it.

import { errorSentence } from "./errors.js";
import { FriendsPanel } from "./friendspanel.js";
import { Inbox, answerable } from "./friends.js";
import { gameTitle } from "./games.js";
import { NoticeList } from "./notices.js";

const LIST_CHANGES = new Set(["friend_request", "friend_accepted"]);

export class Social {
  constructor(app) {
    this.app = app;
    this.friendCode = null;
    this.friends = [];
    this.presence = new Map();
    this.appearOffline = false;
    this.inbox = new Inbox();
    this.answered = new Set();
    this.offeredCode = null;
    this.panel = new FriendsPanel({
      add: (code, done) => this.add(code, done),
      accept: (playerId) => this.change(playerId, "accept"),
      decline: (playerId) => this.change(playerId, "decline"),
      cancel: (playerId) => this.change(playerId, "remove"),
      remove: (playerId) => this.change(playerId, "remove"),
      block: (playerId) => this.change(playerId, "block"),
      unblock: (playerId) => this.change(playerId, "unblock"),
      challenge: (playerId, deal) => app.challenge(playerId, deal),
      follow: (route) => app.go(route),
      reissueCode: () => this.reissueCode(),
      appearOffline: (on) => this.setAppearOffline(on),
      dismissInvite: () => this.offerInvite(null),
      copy: (text) => this.copy(text),
    });
    this.notices = new NoticeList(document, {
      opened: (notes) => this.markRead(notes),
      answer: (note, accepted) => this.answer(note, accepted),
      nowMs: () => this.now(),
    });
    this.listen(app.connection);
  }

  now() {
    return this.app.serverClock.now();
  }

  listen(connection) {
    // Any request says "back", so a hidden page says it is away last.
    connection.on("welcome", async () => {
      await this.refresh();
      if (document.hidden) this.sayAway(true);
    });
    connection.on("presence", (presence) => {
      this.presence.set(presence.player_id, presence);
      this.render();
    });
    // The reply to friends_presence, or unasked after the server's outage.
    connection.on("presences", ({ players, appear_offline: hidden }) => {
      this.presence = new Map(players.map((presence) => [presence.player_id, presence]));
      this.appearOffline = hidden;
      this.render();
    });
    document.addEventListener("visibilitychange", () => this.sayAway(document.hidden));
    // The unread ones come again after each hello: only news is announced.
    connection.on("notification", ({ notification }) => {
      const news = !this.inbox.knows(notification.notification_id);
      this.inbox.receive([notification]);
      if (news && LIST_CHANGES.has(notification.kind)) this.refreshFriends();
      this.render(news ? [notification] : []);
    });
  }

  // After a welcome: the inbox, and the friends list unless the lobby
  // (which asks for it on every refresh) is showing.
  async refresh() {
    const lobby = this.app.route.kind === "lobby";
    await Promise.all([lobby ? null : this.refreshFriends(), this.refreshInbox()]);
  }

  // The list and each friend's presence (pushed changes follow).
  async refreshFriends() {
    try {
      const [list] = await Promise.all([this.app.request({ type: "friends" }), this.app.request({ type: "friends_presence" })]);
      this.friendCode = list.code;
      this.friends = list.friends;
      this.render();
    } catch (error) {
      this.complain(error);
    }
  }

  // A hidden tab or a locked phone is away; friends see it.
  sayAway(away) {
    if (this.app.connection.online) this.app.request({ type: "set_presence", away }).catch(() => {});
  }

  async setAppearOffline(on) {
    try {
      await this.app.request({ type: "appear_offline", on });
      this.appearOffline = on;
    } catch (error) {
      this.complain(error);
    }
    this.render();
  }

  async refreshInbox() {
    try {
      const reply = await this.app.request({ type: "notifications" });
      this.inbox.receive(reply.notifications);
      this.render();
    } catch (error) {
      this.complain(error);
    }
  }

  complain(error) {
    if (error.code !== "offline") this.app.toast(errorSentence(error));
  }

  // An invite link was opened (`code`), or its offer answered (null).
  offerInvite(code) {
    this.offeredCode = code;
    if (code === null && window.location.hash.startsWith("#friend=")) window.history.replaceState(null, "", "#lobby");
    this.render();
  }

  async add(code, done = () => {}) {
    try {
      const reply = await this.app.request({ type: "friend_add", code });
      done();
      this.app.toast(reply.state === "friend" ? `You and ${reply.name} are now friends.` : `Friend request sent to ${reply.name}.`);
      if (code === this.offeredCode) this.offerInvite(null);
      await this.refreshFriends();
    } catch (error) {
      this.complain(error);
    }
  }

  async change(playerId, action) {
    try {
      await this.app.request({ type: "friend_change", player_id: playerId, action });
      await this.refreshFriends();
    } catch (error) {
      this.complain(error);
    }
  }

  async reissueCode() {
    try {
      this.friendCode = (await this.app.request({ type: "friend_code", reissue: true })).code;
      this.render();
    } catch (error) {
      this.complain(error);
    }
  }

  async copy(text) {
    try {
      await navigator.clipboard.writeText(text);
      this.app.toast("Invite link copied: send it to a friend.");
    } catch {
      this.app.toast(`Your invite link: ${text}`);
    }
  }

  async markRead(notes) {
    const ids = notes.map((note) => note.notification_id);
    this.inbox.markRead(ids);
    this.render();
    try {
      await this.app.request({ type: "read_notifications", notification_ids: ids });
    } catch (error) {
      this.complain(error);
    }
  }

  // Accept or decline what a notification offers: a friend request, or a
  // challenge (accepted, its race's lobby opens).  A challenge is answered
  // once: one the server calls expired or gone is not offered again.
  async answer(note, accepted) {
    if (note.kind === "friend_request") {
      await this.change(note.sender.player_id, accepted ? "accept" : "decline");
      return;
    }
    this.answered.add(note.notification_id);
    this.render();
    try {
      const reply = await this.app.request({ type: "challenge_answer", challenge_id: note.notification_id, accept: accepted });
      if (accepted && reply.race) this.app.openRace(reply.race.race_id);
    } catch (error) {
      if (error.code === "offline") this.answered.delete(note.notification_id);
      this.render();
      this.complain(error);
    }
  }

  stateOf(playerId) {
    return this.friends.find((entry) => entry.player_id === playerId)?.state ?? null;
  }

  // The friends panel, drawn for the lobby's game as chosen now.
  drawnPanel() {
    this.render();
    return this.panel.node;
  }

  // Redraw the panel and the list; `fresh` notifications are announced.
  render(fresh = []) {
    const now = this.now();
    const notes = this.inbox.list().map((note) => {
      const known = { ...note, answered: this.answered.has(note.notification_id) };
      return { ...known, answerable: answerable(known, this.stateOf(note.sender.player_id), now) };
    });
    this.notices.show(notes, now, fresh);
    this.panel.show({
      friends: this.friends.map((entry) => ({ ...entry, presence: this.presence.get(entry.player_id) })),
      friendCode: this.friendCode, offeredCode: this.offeredCode, appearOffline: this.appearOffline,
      raceTitle: gameTitle(this.app.lobby.choices.game),
    }, now);
  }
}
