"""One settings model: defaults, ARENA_* variables, flags; the store factory."""

from __future__ import annotations

import subprocess
import sys

import pytest

from server.runtime.settings import DEFAULT_STATIC_DIR, OTHER_VARIABLES, ENV_PREFIX, Settings, SettingsError, env_name
from server.storage import open_store
from server.storage.memory import MemoryStore


def test_every_setting_has_an_environment_variable_and_a_description() -> None:
    for name, field in Settings.model_fields.items():
        assert env_name(name) == ENV_PREFIX + name.upper()
        assert field.description, name


def test_environment_variables_set_every_kind_of_value() -> None:
    settings = Settings.from_env(
        {
            "ARENA_PORT": "9001",
            "ARENA_ALLOW_POSITIONS": "true",
            "ARENA_PING_INTERVAL": "none",
            "ARENA_RATE_PER_SECOND": "2.5",
            "ARENA_REDIS_URL": "redis://127.0.0.1:6390/0",
            "ARENA_STATIC_DIR": "/srv/web",
            "UNRELATED": "x",
        }
    )
    assert (settings.port, settings.allow_positions, settings.ping_interval) == (9001, True, None)
    assert settings.rate_per_second == 2.5 and settings.redis_url == "redis://127.0.0.1:6390/0"
    assert str(settings.static_dir) == "/srv/web"


def test_flags_override_the_environment_and_unset_flags_do_not() -> None:
    settings = Settings.from_env({"ARENA_PORT": "9001", "ARENA_HOST": "0.0.0.0"}, port=9002, host=None)
    assert (settings.port, settings.host) == (9002, "0.0.0.0")


@pytest.mark.parametrize(("name", "value"), [("ARENA_PORT", "eighty"), ("ARENA_PORT", "70000"), ("ARENA_SEND_QUEUE", "1")])
def test_a_bad_variable_is_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({name: value})
    assert str(refused.value).startswith(f"{name}={value!r}: ")


def test_a_bad_flag_is_refused_as_a_command_line_value() -> None:
    with pytest.raises(SettingsError, match=r"^port=70000 \(command line\): "):
        Settings.from_env({}, port=70000)


def test_a_misspelt_variable_is_refused_with_the_closest_real_one() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"ARENA_PROT": "9001", "ARENA_RATE_BRUST": "5", "ARENA_ZZZ": "1"})
    assert str(refused.value) == (
        "ARENA_PROT is not a setting (did you mean ARENA_PORT?); "
        "ARENA_RATE_BRUST is not a setting (did you mean ARENA_RATE_BURST?); ARENA_ZZZ is not a setting"
    )


def test_the_client_and_solver_variables_are_not_refused_by_the_server() -> None:
    assert Settings.from_env({name: "x" for name in OTHER_VARIABLES}) == Settings()


def test_without_redis_the_store_is_in_memory() -> None:
    assert isinstance(open_store(Settings().redis_url), MemoryStore)


def _serve_with_redis(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--redis", url],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_serve_with_an_unknown_store_url_exits_with_usage() -> None:
    done = _serve_with_redis("postgres://127.0.0.1/arena")
    assert done.returncode == 2 and "unknown storage URL" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_serve_with_an_unreachable_redis_exits_with_a_message() -> None:
    done = _serve_with_redis("redis://127.0.0.1:1/0")
    assert done.returncode == 1 and done.stderr.startswith("arena serve:"), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [("ARENA_PORT", "eighty", "ARENA_PORT='eighty': "), ("ARENA_PROT", "9001", "ARENA_PROT is not a setting (did you mean ARENA_PORT?)")],
)
def test_serve_with_a_bad_or_misspelt_variable_exits_with_usage_naming_it(variable: str, value: str, said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve"],
        capture_output=True,
        text=True,
        timeout=60,
        env={variable: value, "PATH": ""},
    )
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_the_default_static_dir_is_the_web_clients_folder() -> None:
    """The served files are found from the settings module's own place in
    the tree, so moving that module must move this path with it."""
    assert (DEFAULT_STATIC_DIR / "index.html").is_file() and DEFAULT_STATIC_DIR.parts[-2:] == ("client", "web")
    assert Settings().static_dir == DEFAULT_STATIC_DIR
