"""Settings come from defaults, then ORDO_* environment variables, then flags."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest

from service.config import Settings, available_cpus, env_name, load
from tests.state_keys import NEXT_KEY, TEST_KEY, keys_file_text


class TestSettings:
    """Where each setting comes from."""

    def test_defaults(self) -> None:
        """With nothing set the server listens on 0.0.0.0:50051 with metrics on 9464."""
        settings = load([], {})
        assert (settings.host, settings.port, settings.metrics_port) == ("0.0.0.0", 50051, 9464)
        assert settings == Settings()
        assert settings.max_connection_age_seconds == 0.0

    def test_defaults_of_the_readme(self) -> None:
        """Every other setting's default is the one the operations docs' table gives."""
        settings = load([], {})
        assert (settings.workers, settings.threads, settings.cpu_affinity) == (0, 4, "auto")
        assert settings.grace_seconds == 10.0
        assert (settings.log_level, settings.log_format) == ("info", "auto")
        assert settings.access_log_flush_ms == 100
        assert settings.max_request_bytes == 1_048_576
        assert settings.max_concurrent_rpcs == 0
        assert settings.state_cache_bytes == 64 * 1024 * 1024

    def test_environment_overrides_defaults(self) -> None:
        """ORDO_PORT and friends override the defaults."""
        settings = load([], {"ORDO_PORT": "6000", "ORDO_GRACE_SECONDS": "2.5"})
        assert (settings.port, settings.grace_seconds) == (6000, 2.5)

    def test_flags_override_environment(self) -> None:
        """A flag wins over its environment variable."""
        assert load(["--port", "7000"], {"ORDO_PORT": "6000"}).port == 7000

    def test_one_worker_per_core_by_default(self) -> None:
        """workers 0 means one process per CPU the server may run on."""
        assert load([], {}).worker_count == available_cpus() >= 1

    def test_max_search_iterations(self) -> None:
        """The search bot's maximum iterations per request: 256, or the flag or environment."""
        assert load([], {}).max_search_iterations == 256
        assert load(["--max-search-iterations", "40"], {}).max_search_iterations == 40
        assert load([], {"ORDO_MAX_SEARCH_ITERATIONS": "9"}).max_search_iterations == 9

    def test_cpu_affinity(self) -> None:
        """Workers are pinned to CPUs when that is safe (auto), always, or never."""
        assert load([], {}).cpu_affinity == "auto"
        assert load(["--cpu-affinity", "none"], {}).cpu_affinity == "none"
        assert load([], {"ORDO_CPU_AFFINITY": "pin"}).cpu_affinity == "pin"

    @pytest.mark.parametrize(
        ("argv", "environ"),
        [
            (["--log-format", "xml"], {}),
            ([], {"ORDO_PORT": "eighty"}),
            (["--port", "0"], {"ORDO_WORKERS": "2"}),
            (["--threads", "0"], {}),
            (["--state-cache-bytes", "-1"], {}),
            (["--grace-seconds", "-1"], {}),
            (["--grace-seconds", "nan"], {}),
            (["--max-connection-age-seconds", "-1"], {}),
            ([], {"ORDO_MAX_CONNECTION_AGE_SECONDS": "inf"}),
            (["--max-request-bytes", "0"], {}),
            (["--cpu-affinity", "always"], {}),
            ([], {"ORDO_CPU_AFFINITY": "always"}),
            ([], {"ORDO_LOG_FORMAT": "xml"}),
            ([], {"ORDO_LOG_LEVEL": "loud"}),
            (["--workers", "-1"], {}),
            ([], {"ORDO_WORKERS": "-1"}),
            (["--max-concurrent-rpcs", "-1"], {}),
            (["--port", "-1"], {}),
            (["--port", "65536"], {}),
            (["--metrics-port", "70000"], {}),
            (["--http-port", "70000"], {}),
            (["--http-port", "50051"], {}),
            (["--metrics-port", "8080"], {}),
            (["--max-search-iterations", "0"], {}),
            (["--suggest-policies", "heuristic,serach"], {}),
            ([], {"ORDO_MAX_SEARCH_ITERATIONS": "-5"}),
        ],
    )
    def test_bad_settings_exit_with_usage(self, argv: list[str], environ: dict[str, str]) -> None:
        """A bad value stops the server with a usage error (exit code 2)."""
        with pytest.raises(SystemExit) as stopped:
            load(argv, environ)
        assert stopped.value.code == 2

    def test_port_zero_with_one_worker(self) -> None:
        """Port 0 (a free port) is allowed with one worker, which shares the port with none."""
        assert load(["--port", "0", "--workers", "1"], {}).port == 0
        assert load([], {"ORDO_PORT": "0", "ORDO_WORKERS": "1"}).port == 0

    def test_zero_durations(self) -> None:
        """A grace period of 0 (stop at once) and a connection age of 0 (never close) are
        allowed."""
        settings = load(["--grace-seconds", "0", "--max-connection-age-seconds", "0"], {})
        assert (settings.grace_seconds, settings.max_connection_age_seconds) == (0.0, 0.0)

    def test_suggest_policies(self) -> None:
        """The policies a player may ask SuggestAction for: heuristic and random by default,
        any of the games' policies, or none."""
        assert load([], {}).suggest_policies == "heuristic,random"
        assert load(["--suggest-policies", "heuristic,search"], {}).suggest_policies == (
            "heuristic,search"
        )
        assert load([], {"ORDO_SUGGEST_POLICIES": ""}).suggest_policies == ""

    def test_environment_names(self) -> None:
        """Every setting's variable is ORDO_ and its upper-case name."""
        assert env_name("max_request_bytes") == "ORDO_MAX_REQUEST_BYTES"


VALID_KEYS = keys_file_text(NEXT_KEY, TEST_KEY)


class TestStateKeys:
    """The state keys file, read once at start-up: a file that cannot be used is a usage error."""

    def test_no_keys_by_default(self) -> None:
        """Without a keys file states are not sealed, nor required to be."""
        settings = load([], {})
        assert (settings.state_keys_file, settings.state_keys, settings.require_sealed) == (
            "",
            (),
            False,
        )

    def test_the_keys_in_file_order(self, tmp_path: Path) -> None:
        """The keys are read in the file's order (the first seals); blank and # lines are
        skipped; the flag and ORDO_STATE_KEYS_FILE name the file."""
        path = tmp_path / "keys"
        path.write_text(f"# rotated in May\n\n{VALID_KEYS}")
        assert load(["--state-keys-file", str(path)], {}).state_keys == (NEXT_KEY, TEST_KEY)
        assert load([], {"ORDO_STATE_KEYS_FILE": str(path)}).state_keys == (NEXT_KEY, TEST_KEY)

    def test_the_keys_are_never_shown(self, tmp_path: Path) -> None:
        """The settings' repr names the file, never a key."""
        path = tmp_path / "keys"
        path.write_text(VALID_KEYS)
        shown = repr(load(["--state-keys-file", str(path)], {}))
        assert str(path) in shown
        assert all(
            base64.b64encode(key).decode() not in shown and repr(key) not in shown
            for _id, key in (NEXT_KEY, TEST_KEY)
        )

    @pytest.mark.parametrize(
        ("environ", "expected"),
        [({"ORDO_REQUIRE_SEALED": "true"}, True), ({"ORDO_REQUIRE_SEALED": "0"}, False)],
    )
    def test_require_sealed(self, tmp_path: Path, environ: dict[str, str], expected: bool) -> None:
        """--require-sealed and ORDO_REQUIRE_SEALED (true/false, 1/0, yes/no, on/off)."""
        path = tmp_path / "keys"
        path.write_text(VALID_KEYS)
        argv = ["--state-keys-file", str(path)]
        assert load(argv, environ).require_sealed is expected
        assert load([*argv, "--require-sealed"], {}).require_sealed is True
        assert load([*argv, "--no-require-sealed"], environ).require_sealed is False

    KEY = base64.b64encode(bytes(64)).decode()

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("", "no key"),
            ("# only a comment\n", "no key"),
            (f"k1 {KEY} extra\n", "line 1: expected 'KEY_ID BASE64_KEY'"),
            ("k1\n", "line 1: expected"),
            (f"K1 {KEY}\n", "line 1: a key id is 1 to 32"),
            (f"{'k' * 33} {KEY}\n", "line 1: a key id is 1 to 32"),
            (f"k_1 {KEY}\n", "line 1: a key id"),
            (f"k1 {KEY}\nk1 {KEY}\n", "line 2: key id 'k1' is listed twice"),
            ("k1 not*base64\n", "line 1: the key is not valid base64"),
            (f"k1 {KEY[:-4]}\n", "line 1: the key is 63 bytes; AES-256-SIV takes 64"),
            (f"k1 {base64.b64encode(bytes(32)).decode()}\n", "the key is 32 bytes"),
        ],
        ids=[
            "empty",
            "comment-only",
            "three-words",
            "no-key",
            "upper-case-id",
            "long-id",
            "underscore-id",
            "twice",
            "not-base64",
            "short-key",
            "aes-128-siv-key",
        ],
    )
    def test_a_malformed_keys_file_exits_with_usage(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
    ) -> None:
        """A malformed keys file stops the server with exit code 2 and a message naming the
        line and what is wrong, never the key."""
        path = tmp_path / "keys"
        path.write_text(text)
        with pytest.raises(SystemExit) as stopped:
            load(["--state-keys-file", str(path)], {})
        assert stopped.value.code == 2
        error = capsys.readouterr().err
        assert message in error
        assert self.KEY not in error

    def test_a_missing_keys_file_exits_with_usage(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """A keys file that cannot be read stops the server with exit code 2."""
        with pytest.raises(SystemExit) as stopped:
            load([], {"ORDO_STATE_KEYS_FILE": str(tmp_path / "absent")})
        assert stopped.value.code == 2
        assert "cannot read the state keys file" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("argv", "environ"),
        [(["--require-sealed"], {}), ([], {"ORDO_REQUIRE_SEALED": "yes"})],
    )
    def test_require_sealed_without_keys_exits_with_usage(
        self, argv: list[str], environ: dict[str, str], capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Sealed states cannot be required without keys to seal them (exit code 2)."""
        with pytest.raises(SystemExit) as stopped:
            load(argv, environ)
        assert stopped.value.code == 2
        assert "--require-sealed needs --state-keys-file" in capsys.readouterr().err

    def test_a_bad_boolean_exits_with_usage(self) -> None:
        """ORDO_REQUIRE_SEALED takes true/false, 1/0, yes/no, on/off, nothing else."""
        with pytest.raises(SystemExit) as stopped:
            load([], {"ORDO_REQUIRE_SEALED": "maybe"})
        assert stopped.value.code == 2


class TestSeatTokensAndFence:
    """Seat tokens and the revision fence need state keys; tokens take sealed states only."""

    def test_off_by_default(self) -> None:
        """By default no token is required and no store fences the games."""
        settings = load([], {})
        assert (settings.require_seat_tokens, settings.revision_store) == (False, "")

    def test_seat_tokens_imply_sealed_states(self, tmp_path: Path) -> None:
        """--require-seat-tokens (or ORDO_REQUIRE_SEAT_TOKENS=true) with keys requires sealed
        states too."""
        path = tmp_path / "keys"
        path.write_text(VALID_KEYS)
        argv = ["--state-keys-file", str(path)]
        for settings in (
            load([*argv, "--require-seat-tokens"], {}),
            load(argv, {"ORDO_REQUIRE_SEAT_TOKENS": "true"}),
        ):
            assert (settings.require_seat_tokens, settings.require_sealed) == (True, True)

    def test_the_revision_store_and_its_idle_time(self, tmp_path: Path) -> None:
        """--revision-store / ORDO_REVISION_STORE name the store; the idle time is a setting."""
        path = tmp_path / "keys"
        path.write_text(VALID_KEYS)
        environ = {"ORDO_REVISION_STORE": "redis://10.0.0.5:6379/2"}
        settings = load(["--state-keys-file", str(path), "--revision-idle-seconds", "60"], environ)
        assert (settings.revision_store, settings.revision_idle_seconds) == (
            "redis://10.0.0.5:6379/2",
            60.0,
        )

    def test_a_store_without_redis_installed_says_how_to_install_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """redis is an extra of the server: asked for a store without it, the server exits 2
        and names the extra to install."""
        path = tmp_path / "keys"
        path.write_text(VALID_KEYS)
        monkeypatch.setitem(sys.modules, "redis", None)  # as an installation without it
        argv = ["--state-keys-file", str(path), "--revision-store", "redis://h:1/0"]
        with pytest.raises(SystemExit) as stopped:
            load(argv, {})
        assert stopped.value.code == 2
        assert "pip install 'ordo-server[redis]'" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("argv", "message"),
        [
            (["--require-seat-tokens"], "--require-seat-tokens needs --state-keys-file"),
            (["--revision-store", "redis://h:1/0"], "--revision-store needs --state-keys-file"),
            (["--revision-store", "h:6379"], "--revision-store is a URL starting with redis://"),
            (["--revision-idle-seconds", "0"], "revision idle seconds must be positive"),
        ],
        ids=["tokens-without-keys", "store-without-keys", "store-not-a-url", "no-idle-time"],
    )
    def test_unusable_settings_exit_with_usage(
        self, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """Tokens or a fence without keys, a store that is no URL, an idle time of 0: exit 2."""
        with pytest.raises(SystemExit) as stopped:
            load(argv, {})
        assert stopped.value.code == 2
        assert message in capsys.readouterr().err
