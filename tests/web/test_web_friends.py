"""Friends, notifications and devices in the browser client, driven by
headless Chromium against a real server.

Each page is a fresh browser profile, hence its own player, except the
one linked by code, which becomes the player who showed the code.  The
day's WordLink deal is pinned before any page asks for it
(``pin_daily_deal``), so a challenge's race on today's daily is created
at once instead of waiting for a proof.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page
from tests.races.arena_races import pin_daily_deal
from tests.web.web_harness import PHONE, PROVEN_START_MS, Site, sign_in, start_from_lobby

from server.deals.daily import utc_day

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}


async def named_page(site: Site, name: str, **options: Any) -> Page:
    page = await site.page(**options)
    await sign_in(page, name)
    return page


async def player_id(page: Page) -> str:
    return str(await page.evaluate("window.arena.playerId()"))


async def token(page: Page) -> str:
    return str(await page.evaluate("localStorage.getItem('arena.token')"))


async def unread(page: Page, count: int) -> None:
    """Wait for the bell's count to read ``count`` (hidden at zero)."""
    if count == 0:
        await page.wait_for_selector("#notice-count[hidden]", state="attached")
    else:
        await page.wait_for_function("n => document.getElementById('notice-count').textContent === n", arg=str(count))
        await page.wait_for_selector("#notice-count:not([hidden])")


async def become_friends(site: Site, host: Page, guest_name: str, **options: Any) -> Page:
    """``guest_name`` opens ``host``'s invite link in a new browser and
    sends the request; ``host`` accepts it from the notification list."""
    code = (await host.inner_text("#friend-code")).strip()
    guest = await site.page(fragment=f"#friend={code}", **options)
    await sign_in(guest, guest_name)
    await guest.click("#send-invite-request")
    await guest.wait_for_selector('#friend-requests li[data-request="sent"]')
    await unread(host, 1)
    await host.click("#open-notices")
    await host.click('#notice-list li[data-notice="friend_request"] [data-accept]')
    await unread(host, 0)
    await host.wait_for_selector(f'#friend-list li[data-player="{await player_id(guest)}"]')
    return guest


def friend_row(page_player: str, state: str) -> str:
    return f'#friend-list li[data-player="{page_player}"][data-state="{state}"]'


async def no_overflow(page: Page) -> None:
    widths = await page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths}"


async def test_friends_see_each_other_online_and_a_challenge_brings_both_to_one_race(site: Site) -> None:
    """Bob opens Ann's invite link and asks; Ann accepts from her
    notifications; each sees the other online; Ann challenges Bob from
    her friends list and lands in the race's lobby; Bob accepts the
    challenge from his notifications and lands in the same race.  Back
    in the lobby, Ann appears offline: Bob sees her offline and cannot
    challenge her."""
    await pin_daily_deal(site.server.store, utc_day(site.server.hub.clock()))
    ann = await named_page(site, "Ann", viewport=LAPTOP)
    bob = await become_friends(site, ann, "Bob")
    ann_id, bob_id = await player_id(ann), await player_id(bob)
    await ann.wait_for_selector(friend_row(bob_id, "online"))
    await bob.wait_for_selector(friend_row(ann_id, "online"))
    assert "Online" in await bob.inner_text(friend_row(ann_id, "online"))

    await ann.click(f'[data-challenge="{bob_id}"]')
    await ann.wait_for_selector("#race-invite-code", timeout=PROVEN_START_MS)
    race = await ann.evaluate("location.hash")
    assert race.startswith("#race/")
    await unread(bob, 2)
    await bob.click("#open-notices")
    notices = await bob.inner_text("#notice-list")
    assert "Ann challenges you to a WordLink race." in notices and "Ann accepted your friend request." in notices
    await bob.click('#notice-list li[data-notice="challenge"] [data-accept]')
    await bob.wait_for_function("hash => location.hash === hash", arg=race)
    for page in (ann, bob):
        await page.wait_for_function("document.querySelectorAll('#racers tbody tr').length === 2")
    await no_overflow(ann)

    await ann.click("#race-to-lobby")
    await ann.check("#appear-offline")
    await bob.click("#race-to-lobby")
    await bob.wait_for_selector(friend_row(ann_id, "offline"))
    assert await bob.is_disabled(f'[data-challenge="{ann_id}"]')


async def test_a_notification_while_playing_on_a_phone_only_counts_on_the_bell(site: Site) -> None:
    """A friend request reaches Bob mid-game on a phone: the bell counts
    it and a screen reader hears it, nothing opens over the board; the
    list opens from the bell, fits the phone and marks it read."""
    ann = await named_page(site, "Ann")
    bob = await named_page(site, "Bob", viewport=PHONE, has_touch=True, is_mobile=True)
    await start_from_lobby(bob, "klondike", deal=5)
    await ann.fill("#friend-code-input", str(await bob.evaluate("window.arena.social.friendCode")))
    await ann.click("#add-friend")
    await unread(bob, 1)
    assert await bob.evaluate("document.querySelector('dialog[open]') === null")
    assert await bob.get_attribute("#toast", "hidden") is not None
    assert "Ann sent you a friend request." in await bob.inner_text("#notice-announce")
    assert await bob.get_attribute("#open-notices", "aria-label") == "Notifications, 1 unread"
    await no_overflow(bob)
    await bob.click("#open-notices")
    box = await bob.locator("#notices").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    await unread(bob, 0)
    await bob.keyboard.press("Escape")
    assert await bob.evaluate("document.querySelector('dialog[open]') === null")


async def test_a_second_browser_linked_by_code_plays_as_the_same_player_until_revoked(site: Site) -> None:
    """Ann's laptop shows a link code; a fresh phone first types a wrong
    one (refused, it stays itself), then Ann's (lower case, dashes as
    shown) and becomes Ann with a token of its own, keeps being Ann after
    a reload and after replacing its token, and a game it starts is
    Ann's on the laptop.  The
    laptop lists both devices and revokes the phone, which is told and
    starts over as a new player."""
    ann = await named_page(site, "Ann", viewport=LAPTOP)
    await ann.click("#link-device")
    code = (await ann.inner_text("#link-code")).strip()
    assert "left, works once" in await ann.inner_text("#link-expiry")
    phone = await site.page(viewport=PHONE, has_touch=True, is_mobile=True)
    stranger = await player_id(phone)
    await phone.click("#to-use-code")
    assert await phone.evaluate("document.activeElement.id") == "link-code-input"
    await phone.keyboard.type("ZZZZZ-ZZZZZ")
    await phone.keyboard.press("Enter")
    await phone.wait_for_selector("#toast:not([hidden])")
    assert (await phone.inner_text("#toast")).startswith("That code does not work")
    await phone.wait_for_selector('#connection[data-state="online"]')
    assert await player_id(phone) == stranger, "a refused code leaves the browser the player it was"
    await phone.fill("#link-code-input", "")
    await phone.focus("#link-code-input")
    await phone.keyboard.type(code.lower())
    await phone.keyboard.press("Enter")
    await phone.wait_for_function("document.getElementById('connection').textContent === 'Playing as Ann'")
    assert await player_id(phone) == await player_id(ann) != stranger
    assert await token(phone) != await token(ann)
    await phone.wait_for_selector("#device-list li[data-current]")
    await no_overflow(phone)
    await phone.reload()
    await phone.wait_for_function("document.getElementById('connection').textContent === 'Playing as Ann'")
    linked_token = await token(phone)
    await phone.click("#rotate-token")
    await phone.wait_for_function("old => localStorage.getItem('arena.token') !== old", arg=linked_token)
    await phone.reload()
    await phone.wait_for_function("document.getElementById('connection').textContent === 'Playing as Ann'")

    game_id = await start_from_lobby(phone, "klondike", deal=7)
    await ann.click(".live .refresh")
    await ann.wait_for_selector(".my-games li")
    assert await ann.evaluate("id => window.arena.ownGames().some((g) => g.game_id === id)", game_id)

    await ann.wait_for_function("document.querySelectorAll('#device-list li').length === 2")
    assert await ann.locator("#device-list li[data-current] #rotate-token").count() == 1
    await ann.click("#device-list [data-revoke]")
    await ann.wait_for_function("document.querySelectorAll('#device-list li').length === 1")
    await phone.wait_for_function("id => window.arena.playerId() !== null && window.arena.playerId() !== id",
                                  arg=await player_id(ann))
    await phone.wait_for_selector("#toast:not([hidden])")
