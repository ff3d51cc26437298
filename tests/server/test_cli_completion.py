"""``arena completion bash|zsh``: the scripts shtab makes from ``arena``'s
own parser.  The bash one is run in bash, as the shell runs it when the
user presses Tab; the zsh one is checked by zsh where it is installed."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("shtab", reason="arena completion needs shtab (pip install -e '.[test]')")


def script(shell: str) -> str:
    made = subprocess.run(
        [sys.executable, "-m", "server.cli", "completion", shell], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert made.returncode == 0, made.stderr
    return made.stdout


def tab(completion: str, line: str) -> list[str]:
    """What bash offers for the last word of ``line`` (Tab pressed at its end)."""
    run = f"""
source /dev/stdin <<'SCRIPT'
{completion}
SCRIPT
COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
_shtab_arena
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    offered = subprocess.run(["bash", "-c", run], capture_output=True, text=True, timeout=60)
    assert offered.returncode == 0, offered.stderr
    return offered.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completes_commands_subcommands_options_and_choices_from_the_parser() -> None:
    completion = script("bash")
    commands = set(next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices)
    assert set(tab(completion, "arena ")) >= commands >= {"serve", "play", "prepare-dailies", "completion"}
    assert tab(completion, "arena prep") == ["prepare-dailies"]
    assert tab(completion, "arena race j") == ["join"]
    assert set(tab(completion, "arena serve --log-")) == {"--log-level", "--log-format", "--log-config"}
    assert set(tab(completion, "arena play klondike --draw ")) == {"1", "3"}
    assert set(tab(completion, "arena completion ")) == {"bash", "zsh"}


def test_the_zsh_script_is_a_completion_function_for_arena() -> None:
    completion = script("zsh")
    assert completion.startswith("#compdef arena")
    assert "prepare-dailies" in completion and "--log-level" in completion
    if shutil.which("zsh") is not None:
        checked = subprocess.run(["zsh", "-n"], input=completion, capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0, checked.stderr


def test_an_unknown_shell_is_a_usage_error() -> None:
    refused = subprocess.run(
        [sys.executable, "-m", "server.cli", "completion", "fish"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2 and "invalid choice: 'fish'" in refused.stderr


def test_without_shtab_it_says_how_to_get_it() -> None:
    blocked = "import sys; sys.modules['shtab'] = None; from server.cli import main; sys.exit(main(['completion', 'bash']))"
    refused = subprocess.run([sys.executable, "-c", blocked], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "needs shtab: pip install 'solitaire-arena[completion]'" in refused.stderr
