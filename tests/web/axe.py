"""axe-core inside a Playwright page: the accessibility checks people
trust, from the pinned npm package (``tests.npm_tools``), run on what the
page shows now.

``serious_violations`` injects ``axe.min.js`` once per page and returns
the violations of impact serious or critical, each as a short line
(rule, impact, the first offending nodes), so a failing assertion says
what to fix.  ``in_scheme`` switches the page between the light and dark
colour schemes through the Settings, as a player would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from playwright.async_api import Page
from tests.npm_tools import npm_tools

SEVERE = ("serious", "critical")
Scheme = Literal["light", "dark"]


def axe_script() -> Path:
    """The minified axe-core the tests inject."""
    return npm_tools() / "axe-core" / "axe.min.js"


async def serious_violations(page: Page, within: str | None = None) -> list[str]:
    """The serious and critical axe violations on the page now (or inside
    the element ``within`` selects), one line each."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.add_script_tag(path=str(axe_script()))
    results: dict[str, Any] = await page.evaluate(
        """async (within) => axe.run(within ? document.querySelector(within) : document,
               { resultTypes: ["violations"] })""",
        within,
    )
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} at "
        + "; ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
        for violation in results["violations"]
        if violation["impact"] in SEVERE
    ]


async def in_scheme(page: Page, scheme: Scheme) -> None:
    """Choose ``scheme`` in the Settings and wait for the page to show it."""
    await page.evaluate(
        """scheme => {
            const select = document.getElementById("setting-theme");
            select.value = scheme;
            select.dispatchEvent(new Event("change"));
        }""",
        scheme,
    )
    await page.wait_for_function("scheme => document.documentElement.dataset.scheme === scheme", arg=scheme)
