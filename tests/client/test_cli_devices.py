"""The terminal as one of a player's devices: ``arena devices link`` prints
a code, ``arena login --code`` on another configuration directory (another
machine) redeems it and keeps the new device's own token (mode 0600), and
``arena devices``, ``arena devices rotate`` and ``arena devices revoke``
act on the player; ``arena`` commands run as real subprocesses against a
real server, as in ``test_kept_player``; the library's typed methods too."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from tests.client.arena_restart import RestartableServer
from tests.client.test_kept_player import cli, kept_files

from client import ArenaClient
from client.errors import BadLinkCode, BadToken, DeviceNotFound

CODE = re.compile(r"link code ([0-9A-Z]{5}-[0-9A-Z]{5}), valid until ")


async def test_login_with_a_code_keeps_this_terminal_as_a_device_of_the_player(
    arena: RestartableServer, tmp_path: Path
) -> None:
    laptop, terminal = tmp_path / "laptop", tmp_path / "terminal"
    code, out = await cli(laptop, "play", "chequers", "--name", "ann", "--server", arena.url, stdin="resign\n")
    assert code == 0, out
    [laptop_file] = kept_files(laptop)
    ann = json.loads(laptop_file.read_text())

    code, out = await cli(laptop, "devices", "link", "--server", arena.url)
    match = CODE.search(out)
    assert code == 0 and match is not None and f"--code {match.group(1)}" in out, out
    code, out = await cli(terminal, "login", "--code", match.group(1).lower(), "--device", "desk", "--server", arena.url)
    assert code == 0 and out.startswith(f"you are ann ({ann['player_id']}) on "), out
    [kept_file] = kept_files(terminal)
    assert stat.S_IMODE(kept_file.stat().st_mode) == 0o600
    kept = json.loads(kept_file.read_text())
    assert kept["player_id"] == ann["player_id"] and kept["token"] != ann["token"]

    code, out = await cli(terminal, "records", "--server", arena.url)
    assert code == 0 and out.splitlines()[0] == f"records of ann ({ann['player_id']})", "the same records"
    code, out = await cli(terminal, "devices", "--server", arena.url)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and lines[1].startswith("* ") and "desk" in lines[1], out

    again, out = await cli(tmp_path / "third", "login", "--code", match.group(1), "--server", arena.url)
    assert again == 1 and "[bad_link_code]" in out and kept_files(tmp_path / "third") == [], out


async def test_rotate_keeps_the_new_token_and_revoke_ends_a_device(arena: RestartableServer, tmp_path: Path) -> None:
    laptop, terminal = tmp_path / "laptop", tmp_path / "terminal"
    await cli(laptop, "play", "chequers", "--name", "ann", "--server", arena.url, stdin="quit\n")
    out = (await cli(laptop, "devices", "link", "--server", arena.url))[1]
    match = CODE.search(out)
    assert match is not None, out
    await cli(terminal, "login", "--code", match.group(1), "--server", arena.url)
    old = json.loads(kept_files(terminal)[0].read_text())["token"]

    code, out = await cli(terminal, "devices", "rotate", "--server", arena.url)
    new = json.loads(kept_files(terminal)[0].read_text())["token"]
    assert code == 0 and "kept in" in out and new != old, out
    with pytest.raises(BadToken):
        await ArenaClient(arena.url, token=old).start()

    listed = (await cli(laptop, "devices", "--server", arena.url))[1].splitlines()
    terminal_id = next(line.split()[0] for line in listed if not line.startswith("*"))
    code, out = await cli(laptop, "devices", "revoke", terminal_id, "--server", arena.url)
    assert code == 0 and out.strip() == f"revoked {terminal_id}", out
    code, out = await cli(terminal, "records", "--server", arena.url)
    assert code == 1 and "[bad_token]" in out, out


async def test_the_library_links_lists_and_refuses_what_it_should(arena: RestartableServer) -> None:
    async with ArenaClient(arena.url, name="ann") as ann:
        code = await ann.link_device()
        async with ArenaClient(arena.url, link_code=code.code, device="phone") as phone:
            assert phone.player_id == ann.player_id and phone.token not in (None, ann.token)
            assert [(entry.name, entry.current) for entry in await phone.devices()] == [("", False), ("phone", True)]
        with pytest.raises(BadLinkCode):
            await ArenaClient(arena.url, link_code=code.code).start()
        with pytest.raises(DeviceNotFound):
            await ann.revoke_device("d_none")
        rotated = await ann.rotate_token()
        assert ann.token == rotated
