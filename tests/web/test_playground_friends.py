"""Play with friends in a real browser (Debian's Chromium driven by playwright-core,
``clients/web/test/friends.mjs``): a 6 nimmt! table hosted from the playground and played to its
end from three browser contexts (three people, one bot) and a spectator's, the people choosing at
the same time, one context reloaded mid-game, on a server of two workers hosting on a
``redis-server`` the test starts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.server_process import free_port, running_server
from tests.redis_server import running_redis
from tests.state_keys import TEST_KEY, keys_file_text
from tests.web.test_playground import ARTIFACTS, CHROMIUM, WEB, node_and_browser, run_driver

DRIVER = WEB / "test" / "friends.mjs"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The playground of a server that hosts tables (two workers, one store)."""
    scratch = tmp_path_factory.mktemp("friends")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    http = free_port()
    with (
        running_redis(scratch) as store,
        running_server(
            scratch,
            workers=2,
            http_port=str(http),
            state_keys_file=str(keys),
            require_seat_tokens="true",
            table_store=store.url,
        ),
    ):
        yield f"http://127.0.0.1:{http}/"


class TestPlayWithFriends:
    """A table played from several browsers."""

    def test_three_people_a_bot_and_a_spectator(self, url: str) -> None:
        """Every context sees every move once, in order, to the same end; no page ever holds
        another seat's hidden cards or token; the reloaded page rejoins where it was."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        report = run_driver(
            [
                *(node_and_browser(), str(DRIVER), "--url", url),
                *("--chromium", str(CHROMIUM), "--shots", str(ARTIFACTS)),
            ]
        )
        assert report["turns"] >= 10
        assert report["revisionsBeforeReload"] > 0
