"""The shared engine helpers: ``slot_init`` builds the same frozen values, only faster; ``quoted``
cuts a caller's text in an error message."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass

import pytest

from engines import registry
from engines.base import POLICY_DESCRIPTIONS, GameInfo, slot_init
from engines.errors import (
    QUOTED_CHARACTERS,
    InvalidSeatError,
    InvalidSeatsError,
    UnknownGameError,
    UnknownPolicyError,
    UnsupportedRulesVersionError,
    quoted,
)
from engines.prng import Rng
from engines.search import SEARCH_POLICY


@dataclass(frozen=True, slots=True)
class Plain:
    """A frozen, slotted dataclass as ``dataclass`` writes it."""

    seat: int
    cards: tuple[int, ...]
    name: str


@slot_init
@dataclass(frozen=True, slots=True)
class Fast:
    """The same fields, with the ``__init__`` of ``slot_init``."""

    seat: int
    cards: tuple[int, ...]
    name: str


class TestSlotInit:
    """``slot_init`` changes how a value is built, never what it is."""

    def test_the_fields_are_stored(self) -> None:
        """Positional and keyword arguments land in their fields."""
        assert dataclasses.astuple(Fast(1, (2, 3), "a")) == (1, (2, 3), "a")
        assert Fast(name="a", cards=(2, 3), seat=1) == Fast(1, (2, 3), "a")

    def test_the_signature_is_the_dataclass_one(self) -> None:
        """Same parameters, order and annotations as the dataclass's own __init__."""
        assert inspect.signature(Fast) == inspect.signature(Plain)
        assert Fast.__init__.__qualname__ == "Fast.__init__"

    def test_missing_and_unknown_arguments_are_refused(self) -> None:
        """Calls the dataclass refuses are refused with the same message."""
        with pytest.raises(TypeError, match=r"__init__\(\) missing 1 required positional"):
            Fast(1, ())  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="unexpected keyword argument 'other'"):
            Fast(1, (), "a", other=2)  # type: ignore[call-arg]

    def test_the_value_stays_frozen(self) -> None:
        """Fields can be neither assigned nor deleted."""
        value = Fast(1, (), "a")
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.seat = 2  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del value.seat

    def test_equality_hash_replace_and_pickle_work_as_before(self) -> None:
        """The dataclass machinery around the value is untouched."""
        value = Fast(1, (2,), "a")
        assert value == Fast(1, (2,), "a")
        assert hash(value) == hash(Fast(1, (2,), "a"))
        assert dataclasses.replace(value, seat=3) == Fast(3, (2,), "a")
        assert pickle.loads(pickle.dumps(value)) == value
        assert repr(value) == "Fast(seat=1, cards=(2,), name='a')"

    def test_only_slotted_dataclasses_of_required_fields(self) -> None:
        """Defaults, __post_init__ or a missing __slots__ would change what __init__ does."""

        @dataclass(frozen=True, slots=True)
        class WithDefault:
            seat: int = 0

        @dataclass(frozen=True)
        class WithoutSlots:
            seat: int

        @dataclass(frozen=True, slots=True)
        class WithPostInit:
            seat: int

            def __post_init__(self) -> None:
                pass

        for cls in (WithDefault, WithoutSlots, WithPostInit):
            with pytest.raises(TypeError, match="not a slotted dataclass of required fields"):
                slot_init(cls)


class TestSlotInitAppliedNow:
    """``slot_init`` applied while the test runs (the classes above were built at import)."""

    def test_the_fields_are_stored_in_their_slots(self) -> None:
        """A class decorated now stores positional and keyword arguments in their fields, with
        the dataclass's signature and a qualified name of its own."""

        @dataclass(frozen=True, slots=True)
        class Now:
            seat: int
            cards: tuple[int, ...]
            name: str

        fast = slot_init(Now)
        assert fast is Now
        assert dataclasses.astuple(Now(1, (2, 3), "a")) == (1, (2, 3), "a")
        assert Now(name="a", cards=(2, 3), seat=1) == Now(1, (2, 3), "a")
        assert inspect.signature(Now) == inspect.signature(Plain)
        assert Now.__init__.__qualname__.endswith("Now.__init__")
        assert Now.__init__.__module__ == Now.__module__
        with pytest.raises(dataclasses.FrozenInstanceError):
            Now(1, (), "a").seat = 2  # type: ignore[misc]

    def test_fields_without_a_required_argument_are_refused(self) -> None:
        """No fields, a default factory or a field outside __init__ would change what
        __init__ does."""

        @dataclass(frozen=True, slots=True)
        class NoFields:
            pass

        @dataclass(frozen=True, slots=True)
        class WithFactory:
            cards: tuple[int, ...] = dataclasses.field(default_factory=tuple)

        @dataclass(frozen=True, slots=True)
        class NotInInit:
            seat: int
            later: int = dataclasses.field(init=False, default=0)

        for cls in (NoFields, WithFactory, NotInInit):
            with pytest.raises(TypeError, match="not a slotted dataclass of required fields"):
                slot_init(cls)


class TestQuoted:
    """A caller's text quoted in an error message."""

    def test_short_text_is_quoted_whole(self) -> None:
        """Text up to the limit is quoted as it is."""
        assert quoted("heuristic") == "'heuristic'"

    def test_text_of_the_limit_is_quoted_whole(self) -> None:
        """Text exactly as long as the limit is not cut."""
        assert quoted("x" * QUOTED_CHARACTERS) == repr("x" * QUOTED_CHARACTERS)

    def test_long_text_is_cut_and_its_length_told(self) -> None:
        """Longer text keeps its first characters and says how long it was."""
        text = quoted("x" * 50_000)
        assert text == f"{'x' * QUOTED_CHARACTERS!r}… (50,000 characters)"


def game_info(min_seats: int, max_seats: int, seat_counts: tuple[int, ...] = ()) -> GameInfo:
    """A game's info with these seat counts (the other fields are any)."""
    return GameInfo("game", "Game", min_seats, max_seats, False, 1, (), seat_counts)


class TestGameInfo:
    """A game's seat counts run from its fewest to its most seats."""

    def test_every_count_between_the_bounds_by_default(self) -> None:
        """Without a list, every count from the fewest to the most seats is a seat count."""
        assert game_info(2, 5).seat_counts == (2, 3, 4, 5)

    def test_a_listed_subset_is_kept(self) -> None:
        """A game may list fewer counts, from the fewest to the most."""
        assert game_info(2, 6, (2, 3, 4, 6)).seat_counts == (2, 3, 4, 6)

    @pytest.mark.parametrize("counts", [(3, 4, 6), (2, 3, 4), (2, 4, 3, 6), (2, 3, 3, 6)], ids=str)
    def test_counts_that_miss_a_bound_or_are_out_of_order_are_refused(
        self, counts: tuple[int, ...]
    ) -> None:
        """Listed counts must ascend without repeats from the fewest to the most seats."""
        with pytest.raises(ValueError, match="do not run from min to max seats"):
            game_info(2, 6, counts)


class TestPolicyDescriptions:
    """Every game describes its bot policies for people (what ListGames shows)."""

    @pytest.mark.parametrize("game", sorted(registry.ENGINES))
    def test_each_policy_has_its_own_description(self, game: str) -> None:
        """random and heuristic read the shared descriptions, search its own; a name that is
        no policy has none."""
        engine = registry.get(game)
        assert engine.describe_policy("random") == POLICY_DESCRIPTIONS["random"]
        assert engine.describe_policy("heuristic") == POLICY_DESCRIPTIONS["heuristic"]
        search_info = engine.search_info
        assert search_info is not None
        assert engine.describe_policy(SEARCH_POLICY) == search_info.description
        assert engine.describe_policy("minimax") == ""


class TestUnknownNames:
    """A game or a bot policy that does not exist is refused, naming it."""

    def test_an_unknown_game(self) -> None:
        """The registry refuses a game it does not list with UNKNOWN_GAME, naming the id."""
        with pytest.raises(UnknownGameError) as error:
            registry.get("chess")
        assert error.value.metadata == {"game": "chess"}

    def test_an_unknown_policy(self) -> None:
        """A game refuses a bot policy it does not have, naming the policy."""
        engine = registry.get("six_nimmt")
        state = engine.new_game(2, 1, engine.default_options())
        with pytest.raises(UnknownPolicyError) as error:
            engine.suggest(state, 0, "minimax", Rng(1))
        assert error.value.metadata == {"policy": "minimax"}


class TestProtocolErrors:
    """The shared protocol's refusals name what they refuse, in their metadata."""

    def test_a_seat_count_out_of_range(self) -> None:
        """A game dealt for a seat count it does not take names the count."""
        engine = registry.get("six_nimmt")
        with pytest.raises(InvalidSeatsError) as error:
            engine.new_game(1, 1, engine.default_options())
        assert error.value.metadata == {"seats": "1"}

    def test_another_rules_version(self) -> None:
        """A state of another rules version names both versions."""
        engine = registry.get("six_nimmt")
        with pytest.raises(UnsupportedRulesVersionError) as error:
            engine.check_rules_version(engine.info.rules_version + 1)
        version = engine.info.rules_version
        assert error.value.metadata == {
            "state_version": str(version + 1),
            "server_version": str(version),
        }

    def test_a_seat_the_game_does_not_have(self) -> None:
        """A seat outside the game is named as the wire sent it."""
        engine = registry.get("six_nimmt")
        state = engine.new_game(2, 1, engine.default_options())
        with pytest.raises(InvalidSeatError) as error:
            engine.check_seat(state, 5)
        assert error.value.metadata == {"seat": "5"}
