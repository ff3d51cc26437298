// The lobby's friends panel: your friends with their presence and a
// Challenge button each, the requests waiting on either side, a form to
// add a friend by code, your own code and invite link, "appear offline"
// and the blocked list.
//
// The panel keeps its element and its form's input across redraws (a
// presence change redraws it while you may be typing a code), and draws
// only from what `show` is given: the social state (social.js) and the
// server's clock for "last seen".

import { h } from "./dom.js";
import { followable, friendInviteLink, groupedCode, presenceLine, sortFriends, typedCode } from "./friends.js";
import { gameTitle } from "./games.js";

const CHALLENGE_DEALS = [["daily", "Today's daily deal"], ["winnable", "A winnable deal"]];

export class FriendsPanel {
  // `actions`: add(code), accept(id), decline(id), cancel(id), remove(id),
  // block(id), unblock(id), challenge(id, dealKind), follow(route),
  // reissueCode(), appearOffline(on), dismissInvite(), copy(text).
  constructor(actions) {
    this.actions = actions;
    this.dealKind = "daily";
    this.codeInput = h("input", { id: "friend-code-input", maxlength: 20, autocomplete: "off", spellcheck: "false",
      autocapitalize: "characters", placeholder: "Friend code, e.g. ABCD-2345", "aria-label": "Friend code" });
    this.slots = { offer: h("div"), list: h("div"), requests: h("div"), own: h("div"), blocked: h("div") };
    this.node = h("section", { class: "panel friends", id: "friends", "aria-labelledby": "friends-title" },
      h("h2", { id: "friends-title" }, "Friends"),
      this.slots.offer, this.slots.list, this.slots.requests, this.addForm(), this.slots.own, this.slots.blocked);
  }

  // Redraw from `view` (social.js: the friends, each with its presence);
  // the add form stays, so a redraw while a code is being typed keeps the
  // typing and the focus.
  show(view, nowMs) {
    const fill = (slot, content) => this.slots[slot].replaceChildren(...[content].filter(Boolean));
    fill("offer", view.offeredCode && this.inviteOffer(view.offeredCode));
    fill("list", this.friendList(view.friends.filter((entry) => entry.state === "friend"), view.raceTitle, nowMs));
    fill("requests", this.requests(view.friends));
    fill("own", this.ownCode(view));
    fill("blocked", this.blocked(view.friends.filter((entry) => entry.state === "blocked")));
  }

  inviteOffer(code) {
    return h("div", { class: "invite-offer", id: "friend-invite", role: "group", "aria-label": "Friend invite" },
      h("p", {}, "You opened a friend's invite link (code ", h("strong", {}, groupedCode(typedCode(code))), "). Send them a friend request?"),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "primary", id: "send-invite-request", onclick: () => this.actions.add(code) },
          "Send friend request"),
        h("button", { type: "button", onclick: () => this.actions.dismissInvite() }, "No thanks")));
  }

  // `raceTitle`: the game chosen in the lobby, which a challenge races on.
  friendList(friends, raceTitle, nowMs) {
    if (!friends.length) {
      return h("p", { class: "note", id: "no-friends" }, "No friends yet: send your code or invite link to someone, or add theirs below.");
    }
    const deal = h("select", { id: "challenge-deal", onchange: (event) => { this.dealKind = event.target.value; } },
      CHALLENGE_DEALS.map(([value, label]) => h("option", { value }, label)));
    deal.value = this.dealKind;
    return h("div", {},
      h("label", { class: "choice challenge-with" }, `Challenge to a ${raceTitle} race (options above) on`, deal),
      h("ul", { class: "friend-list", id: "friend-list" }, sortFriends(friends).map((friend) => this.friendRow(friend, nowMs))));
  }

  // A friend whose presence is not known yet (just accepted) shows none,
  // and may be challenged: the server then says whether they are online.
  friendRow(friend, nowMs) {
    const line = friend.presence ? presenceLine(friend.presence, nowMs, gameTitle) : null;
    const id = friend.player_id;
    const where = followable(friend.presence);
    const offline = line?.state === "offline";
    return h("li", { dataset: line ? { player: id, state: line.state } : { player: id } },
      h("span", { class: "presence-dot", "aria-hidden": "true" }),
      h("span", { class: "friend-who" }, h("strong", {}, friend.name), line && h("small", { class: "presence" }, line.text)),
      h("span", { class: "friend-actions" },
        where && h("button", { type: "button", class: "small", dataset: { follow: id },
          "aria-label": `Watch ${friend.name}`, onclick: () => this.actions.follow(where) }, "Watch"),
        h("button", { type: "button", class: "small primary", dataset: { challenge: id },
          disabled: offline, title: offline ? `${friend.name} is offline` : null,
          "aria-label": `Challenge ${friend.name}`, onclick: () => this.actions.challenge(id, this.dealKind) }, "Challenge"),
        h("details", { class: "more" },
          h("summary", { "aria-label": `More for ${friend.name}` }, "⋯"),
          h("div", { class: "more-menu" },
            h("button", { type: "button", class: "small", dataset: { remove: id }, onclick: () => this.actions.remove(id) },
              "Remove friend"),
            h("button", { type: "button", class: "small", dataset: { block: id }, onclick: () => this.actions.block(id) },
              "Block")))));
  }

  requests(entries) {
    const received = entries.filter((entry) => entry.state === "request_received");
    const sent = entries.filter((entry) => entry.state === "request_sent");
    if (!received.length && !sent.length) return null;
    return h("div", { class: "friend-requests" }, h("h3", {}, "Requests"),
      h("ul", { class: "friend-list", id: "friend-requests" },
        received.map((entry) => h("li", { dataset: { player: entry.player_id, request: "received" } },
          h("span", { class: "friend-who" }, h("strong", {}, entry.name), h("small", {}, "wants to be your friend")),
          h("span", { class: "friend-actions" },
            h("button", { type: "button", class: "small primary", dataset: { accept: entry.player_id },
              onclick: () => this.actions.accept(entry.player_id) }, "Accept"),
            h("button", { type: "button", class: "small", onclick: () => this.actions.decline(entry.player_id) }, "Decline"),
            h("button", { type: "button", class: "small", onclick: () => this.actions.block(entry.player_id) }, "Block")))),
        sent.map((entry) => h("li", { dataset: { player: entry.player_id, request: "sent" } },
          h("span", { class: "friend-who" }, h("strong", {}, entry.name), h("small", {}, "request sent")),
          h("span", { class: "friend-actions" },
            h("button", { type: "button", class: "small", onclick: () => this.actions.cancel(entry.player_id) }, "Cancel"))))));
  }

  addForm() {
    return h("form", { class: "add-friend", onsubmit: (event) => {
      event.preventDefault();
      const code = typedCode(this.codeInput.value);
      if (code) this.actions.add(code, () => { this.codeInput.value = ""; });
    } }, this.codeInput, h("button", { type: "submit", id: "add-friend" }, "Send request"));
  }

  ownCode(view) {
    if (!view.friendCode) return null;
    const link = friendInviteLink(view.friendCode, window.location);
    return h("div", { class: "own-code" },
      h("p", {}, "Your friend code: ", h("strong", { id: "friend-code", class: "code" }, groupedCode(typedCode(view.friendCode)))),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "small", id: "copy-invite", onclick: () => this.actions.copy(link) }, "Copy invite link"),
        h("button", { type: "button", class: "small", id: "reissue-code", onclick: () => this.actions.reissueCode() }, "New code")),
      h("small", { class: "note" }, "A new code stops the old one and its link from working."),
      h("label", { class: "switch" }, h("input", { type: "checkbox", id: "appear-offline", checked: view.appearOffline,
        onchange: (event) => this.actions.appearOffline(event.target.checked) }), " Appear offline to friends"));
  }

  blocked(entries) {
    if (!entries.length) return null;
    return h("details", { class: "blocked" }, h("summary", {}, `Blocked (${entries.length})`),
      h("ul", { class: "friend-list", id: "blocked-list" }, entries.map((entry) => h("li", { dataset: { player: entry.player_id } },
        h("span", { class: "friend-who" }, h("strong", {}, entry.name)),
        h("button", { type: "button", class: "small", onclick: () => this.actions.unblock(entry.player_id) }, "Unblock")))));
  }
}
