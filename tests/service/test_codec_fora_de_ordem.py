"""In-process round trips of the Fora de Ordem codec."""

from __future__ import annotations

import dataclasses

import pytest

from engines.errors import InvalidOptionsError, InvalidStateError, MalformedActionError
from engines.fora_de_ordem import ENGINE, Options, data, rules
from engines.prng import Rng
from ordo.v1 import fora_de_ordem_pb2 as pb
from service.codecs.fora_de_ordem import CARDS, CODEC
from tests.service.state_parts import assert_parts_cover_the_state, assert_serialized_in_parts

SEED = 4242
RANKS = (1, 2, 3, 4, 5)  # a valid ranking of a question's five items


def _playout(
    seats: int, options: Options | None = None
) -> list[tuple[rules.State, tuple[rules.Play, ...]]]:
    """Every state of a random game with the legal actions of the seat to act."""
    state = ENGINE.new_game(seats, SEED, options or Options())
    rng = Rng(seats)
    steps = []
    while to_act := ENGINE.seats_to_act(state):
        legal = ENGINE.legal_actions(state, to_act[0])
        steps.append((state, legal))
        state = ENGINE.apply(state, to_act[0], rng.choice(legal)).state
    steps.append((state, ()))
    return steps


def _wire(msg: pb.ForaDeOrdemState) -> pb.ForaDeOrdemState:
    """The message after a trip through bytes."""
    return pb.ForaDeOrdemState.FromString(msg.SerializeToString())


class TestStates:
    """States survive encode, serialize, parse and decode unchanged."""

    @pytest.mark.parametrize("seats", [2, 6])
    def test_states_along_a_playout_round_trip(self, seats: int) -> None:
        """Every state of a random playout decodes back to itself."""
        for state, _ in _playout(seats):
            msg = _wire(CODEC.encode_state(state))
            assert CODEC.decode_state(msg, state.rules_version, state.revision) == state

    def test_a_state_without_options_is_rejected(self) -> None:
        """The options are a required part of a state."""
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(pb.ForaDeOrdemState(), rules.RULES_VERSION, 0)

    def test_list_sizes_that_do_not_add_up_are_rejected(self) -> None:
        """The hand sizes must cut the flat hand cards exactly."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.hand_sizes[0] += 1
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)

    def test_too_many_custom_questions_in_a_state_are_refused_by_their_count(self) -> None:
        """A state's options with more custom questions than a game may carry are refused by
        their count, before each question is decoded."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        for _ in range(rules.MAX_CUSTOM_QUESTIONS + 1):
            msg.options.custom_questions.add()
        with pytest.raises(
            InvalidStateError,
            match=f"^custom questions: {rules.MAX_CUSTOM_QUESTIONS + 1:,} entries",
        ):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)

    def test_an_unknown_language_in_a_state_is_rejected(self) -> None:
        """An enum number the codec does not know is an inconsistent state."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.options.language = 99  # type: ignore[assignment]
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)


CUSTOM = tuple(
    data.Question(f"c{n}", f"category {n}", ("a", "b", "c", "d", "e"), (1, 2, 3, 4, 5))
    for n in range(rules.DEFAULT_ROUNDS)
)


class TestStateParts:
    """States are serialized in parts, as protobuf serializes them whole."""

    @pytest.mark.parametrize(
        "options",
        [
            Options(language=data.Language.PT_BR),
            Options(language=data.Language.EN),
            Options(custom_questions=CUSTOM),
        ],
        ids=["bank pt-BR", "bank en", "custom questions"],
    )
    @pytest.mark.parametrize("seats", [2, 6])
    def test_serialized_in_parts(self, seats: int, options: Options) -> None:
        """The parts of each state of a game, encoded afresh or reused from the state before
        it, join into protobuf's serialization of the state: the questions by bank id at the
        end, or in full after the options."""
        assert_serialized_in_parts(CODEC, (state for state, _ in _playout(seats, options)))

    def test_a_bank_question_with_other_ranks_is_serialized_in_full(self) -> None:
        """Questions the bank does not hold exactly go in full, in parts as whole."""
        state = ENGINE.new_game(2, SEED, Options())
        first = dataclasses.replace(state.questions[0], ranks=(5, 4, 3, 2, 1))
        assert_serialized_in_parts(
            CODEC, [state, dataclasses.replace(state, questions=(first, *state.questions[1:]))]
        )

    def test_the_questions_follow_the_language_of_the_options(self) -> None:
        """The same questions under another language's options are no longer the bank's: the
        parts that read both are encoded again."""
        state = ENGINE.new_game(2, SEED, Options(language=data.Language.EN))
        other = dataclasses.replace(
            state, options=dataclasses.replace(state.options, language=data.Language.PT_BR)
        )
        assert_serialized_in_parts(CODEC, [state, other])

    def test_the_parts_are_the_whole_state(self) -> None:
        """Every field of the engine state is a part, but the envelope's version and revision."""
        assert_parts_cover_the_state(CODEC, rules.State)


class TestQuestions:
    """A state names bank questions by id and carries any other question in full."""

    def test_bank_questions_travel_as_their_ids(self) -> None:
        """Questions of the built-in bank are encoded as their ids alone."""
        state = ENGINE.new_game(2, SEED, Options(language=data.Language.EN))
        msg = CODEC.encode_state(state)
        assert list(msg.bank_question_ids) == [question.id for question in state.questions]
        assert not msg.questions

    def test_custom_questions_travel_in_full(self) -> None:
        """A custom question keeps its texts and ranks in the state and decodes back."""
        state = ENGINE.new_game(2, SEED, Options(custom_questions=CUSTOM))
        msg = _wire(CODEC.encode_state(state))
        assert not msg.bank_question_ids
        assert all(question.category and question.items for question in msg.questions)
        assert CODEC.decode_state(msg, state.rules_version, state.revision) == state

    def test_a_bank_question_with_other_ranks_travels_in_full(self) -> None:
        """A question that differs from the bank card of its id is not shortened to the id."""
        state = ENGINE.new_game(2, SEED, Options())
        first = dataclasses.replace(state.questions[0], ranks=(5, 4, 3, 2, 1))
        state = dataclasses.replace(state, questions=(first, *state.questions[1:]))
        msg = _wire(CODEC.encode_state(state))
        assert list(msg.questions[0].ranks) == [5, 4, 3, 2, 1]
        assert CODEC.decode_state(msg, state.rules_version, state.revision) == state

    def test_bank_questions_sent_in_full_come_back_as_their_ids(self) -> None:
        """Questions sent in full that are the bank's (equal to them, though other objects)
        are named by their ids in the state that goes back, whole and in parts."""
        state = ENGINE.new_game(2, SEED, Options(language=data.Language.EN))
        msg = CODEC.encode_state(state)
        msg.ClearField("bank_question_ids")
        for question in state.questions:
            msg.questions.add(
                id=question.id,
                category=question.category,
                items=question.items,
                ranks=question.ranks,
            )
        decoded = CODEC.decode_state(_wire(msg), state.rules_version, state.revision)
        assert decoded == state
        assert decoded.questions[0] is not state.questions[0]
        again = CODEC.encode_state(decoded)
        assert list(again.bank_question_ids) == [question.id for question in state.questions]
        assert not again.questions
        assert CODEC.state_parts is not None
        assert b"".join(CODEC.state_parts.serialize(decoded)) == again.SerializeToString()

    def test_more_bank_ids_than_rounds_are_refused_by_their_count(self) -> None:
        """More bank question ids than a game has rounds are refused by their count, even when
        each names a question of the bank."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.bank_question_ids.append(msg.bank_question_ids[0])
        assert len(msg.bank_question_ids) == rules.MAX_ROUNDS + 1
        with pytest.raises(
            InvalidStateError, match=f"^bank question ids: {rules.MAX_ROUNDS + 1} entries"
        ):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)

    def test_an_id_the_bank_does_not_hold_is_rejected(self) -> None:
        """A question named by an unknown id is an inconsistent state."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.bank_question_ids[0] = "no-such-question"
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)

    def test_questions_and_bank_ids_together_are_rejected(self) -> None:
        """A state names its questions one way only."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.questions.add(id="x", category="c", items=["a", "b", "c", "d", "e"], ranks=RANKS)
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, rules.RULES_VERSION, 0)


class TestActions:
    """Actions survive a round trip; an empty action is malformed."""

    def test_legal_actions_round_trip(self) -> None:
        """Every listed action of a playout decodes back to itself."""
        for _, legal in _playout(3):
            for action in legal:
                msg = pb.ForaDeOrdemAction.FromString(
                    CODEC.encode_action(action).SerializeToString()
                )
                assert CODEC.decode_action(msg) == action

    def test_an_action_without_a_move_is_malformed(self) -> None:
        """The move oneof must be set."""
        with pytest.raises(MalformedActionError):
            CODEC.decode_action(pb.ForaDeOrdemAction())


class TestOptions:
    """Options decode with their defaults filled in."""

    def test_unset_options_take_the_defaults(self) -> None:
        """An empty message means pt-BR, 6 rounds, seat 0 starts, the built-in bank."""
        assert CODEC.decode_options(pb.ForaDeOrdemOptions()) == Options()

    def test_options_decode(self) -> None:
        """Language, rounds, starting seat and custom questions come through."""
        question = pb.ForaDeOrdemQuestion(
            id="x",
            category="c",
            items=["a", "b", "c", "d", "e"],
            ranks=[5, 4, 2, 2, 1],
        )
        options = CODEC.decode_options(
            pb.ForaDeOrdemOptions(
                language=pb.FORA_DE_ORDEM_LANGUAGE_EN,
                rounds=2,
                starting_seat=1,
                custom_questions=[question],
            )
        )
        assert options == Options(
            language=data.Language.EN,
            rounds=2,
            starting_seat=1,
            custom_questions=(data.Question("x", "c", ("a", "b", "c", "d", "e"), (5, 4, 2, 2, 1)),),
        )

    def test_too_many_custom_questions_are_refused_before_they_are_decoded(self) -> None:
        """The codec itself refuses more custom questions than a game may carry, by their
        count, before it makes each one a Python value."""
        msg = pb.ForaDeOrdemOptions()
        for _ in range(rules.MAX_CUSTOM_QUESTIONS + 1):
            msg.custom_questions.add()
        with pytest.raises(InvalidOptionsError) as caught:
            CODEC.decode_options(msg)
        assert caught.value.metadata == {"option": "custom_questions"}

    def test_an_unknown_language_is_an_options_error(self) -> None:
        """An enum number the codec does not know names the option."""
        with pytest.raises(InvalidOptionsError) as caught:
            CODEC.decode_options(pb.ForaDeOrdemOptions(language=99))  # type: ignore[arg-type]
        assert caught.value.metadata == {"option": "language"}


class TestViewsAndEvents:
    """Views and events encode, with every card face up."""

    def test_views_encode_for_every_viewer(self) -> None:
        """Each seat's view holds its hand face up; a spectator's holds none."""
        for state, _ in _playout(3)[::7]:
            for viewer in (None, 0, 1, 2):
                msg = CODEC.encode_view(ENGINE.view(state, viewer))
                hand = state.hands[viewer] if viewer is not None else ()
                assert [card.id for card in msg.hand] == list(hand)
                assert len(msg.sides) == data.ITEMS
                assert list(msg.colours)[:1] == [pb.FORA_DE_ORDEM_COLOUR_YELLOW]

    def test_cards_are_encoded_face_up(self) -> None:
        """A card message carries its owner, kind, ranks and bombs."""
        special = data.deck_of(2)[-1]
        view = ENGINE.view(ENGINE.new_game(3, SEED, Options()), None)
        view = dataclasses.replace(view, hand=(special,))
        (card,) = CODEC.encode_view(view).hand
        assert (card.id, card.owner, card.kind, list(card.ranks), card.bombs) == (
            special,
            2,
            pb.FORA_DE_ORDEM_CARD_KIND_PREVIOUS_WRONG,
            [],
            3,
        )

    @pytest.mark.parametrize("card", [-1, len(CARDS)])
    def test_a_card_id_out_of_range_is_refused(self, card: int) -> None:
        """A card id that is no card of the game (below 0, or past the last) is an invalid
        state, not another card's face (-1 would be the last card's)."""
        view = ENGINE.view(ENGINE.new_game(3, SEED, Options()), None)
        with pytest.raises(InvalidStateError):
            CODEC.encode_view(dataclasses.replace(view, hand=(card,)))

    def test_every_event_of_a_game_encodes(self) -> None:
        """Each event body of a whole game has its message."""
        state = ENGINE.new_game(2, SEED, Options())
        rng = Rng(1)
        kinds = set()
        while to_act := ENGINE.seats_to_act(state):
            transition = ENGINE.apply(
                state, to_act[0], rng.choice(ENGINE.legal_actions(state, to_act[0]))
            )
            state = transition.state
            for event in transition.events:
                kinds.add(CODEC.encode_event(event.body).WhichOneof("kind"))
        assert kinds == {
            "card_played",
            "ranks_revealed",
            "side_resolved",
            "hands_refilled",
            "cards_drawn",
            "round_started",
            "game_ended",
        }
