"""Settings come from defaults, then ORDO_* environment variables, then flags."""

from __future__ import annotations

import pytest

from service.config import Settings, available_cpus, env_name, load


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

    def test_environment_names(self) -> None:
        """Every setting's variable is ORDO_ and its upper-case name."""
        assert env_name("max_request_bytes") == "ORDO_MAX_REQUEST_BYTES"
