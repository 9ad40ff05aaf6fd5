"""The ``ordo`` command: list a server's games, watch its bots play one, or play one.

``ordo games`` prints every game the server runs with its seats, policies and options.
``ordo demo GAME`` deals a game (``--seats N``, the fewest the game takes by default) and lets a
bot policy play every seat through the server (SuggestAction, then ApplyAction), printing each
turn as a spectator sees it: the public events, then the spectator's view; then the outcome. In a
game with simultaneous turns every seat to act acts before the turn is printed.
``ordo play GAME`` seats people (``--people 1,3``, seat 1 by default) at a game against bots:
see ``ordo.play``; ``--save FILE`` keeps the game's record (``ordo.records``) in FILE.
``ordo replay FILE`` watches a saved game again, step by step: see ``ordo.watch``.
``ordo host GAME`` has a server that hosts tables keep a game, and prints one link per person
(``--people``, every seat by default; bots play the others) and one for spectators; ``ordo join
LINK`` plays the link's seat in the terminal: see ``ordo.join``. Seats are counted from 1, as
the playground counts them.

A game with a language (Fora de Ordem) is played in the terminal's language (``LANG``:
Portuguese for ``pt*``, English otherwise) unless ``--lang`` says another. ``--hide-results``
keeps the cards from printing what players are meant to work out (Sequence Numbers' results).

The command knows no game: it learns the games from ListGames, builds their options through the
``GameOptions`` descriptor, and renders them with ``ordo.render``. Exit codes: 0 done, 1 the
server failed (its reason is printed), 2 bad usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any, TextIO, TypeAlias

import grpc
from google.protobuf.message import Message

from ordo import records
from ordo.client import DEFAULT_TARGET, Client, OrdoError, game_options
from ordo.join import Seat, host_links, join_table
from ordo.notation import seat_text, seats_text
from ordo.play import Table, play_game
from ordo.render import Renderer, renderer, termination_text
from ordo.tables import parse_link
from ordo.v1 import common_pb2 as common
from ordo.watch import record_game_id, watch

__all__ = ["build_parser", "main", "set_language"]

DISTRIBUTION = "ordo-client"
TARGET_ENV = "ORDO_TARGET"
LANGUAGE_FIELD = "language"  # the options field that picks a game's language, when it has one
LANGUAGES = ("en", "pt_br")
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # the terminal's language, first set wins
POLICIES = ("heuristic", "random", "search")
DEFAULT_MAX_TURNS = 10_000  # more than any game takes with its default options
SEED_LIMIT = 1 << 64  # seeds are uint64
EXIT_OK, EXIT_SERVER_ERROR, EXIT_USAGE = 0, 1, 2
HTTP_PORT = 8080  # the HTTP port of a server, whose playground the links of a table open
GRPC_PORT = 50051  # the gRPC port of a server, which ordo join calls
#: The subcommands of ``ordo``, as argparse gives them.
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class UsageError(Exception):
    """A command line the server's answers show to be wrong (an unknown game, policy…)."""


def client_version() -> str:
    """The installed version of the client distribution ("unknown" when run in place)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``ordo`` command and its subcommands."""
    parser = argparse.ArgumentParser(
        prog="ordo", description="Command-line client of Ordo, the gRPC card-game rules engine."
    )
    parser.add_argument("--version", action="version", version=f"ordo {client_version()}")
    parser.add_argument(
        "--target",
        default=os.environ.get(TARGET_ENV, DEFAULT_TARGET),
        metavar="HOST:PORT",
        help=f"the server's address (env {TARGET_ENV}, default %(default)s)",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per call (default %(default)s)"
    )
    parser.add_argument(
        "--tls",
        action="store_true",
        help="connect with TLS, trusting gRPC's default root certificates (a gateway or mesh "
        "in front of the server terminates it)",
    )
    parser.add_argument(
        "--ca-file",
        metavar="PEM",
        help="connect with TLS, trusting the root certificates in this PEM file",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("games", help="list the games the server runs, with their options")
    dealing = [add_demo(commands), add_play(commands)]
    add_replay(commands)
    dealing.append(add_host(commands))
    add_join(commands)
    for command in dealing:
        add_game_arguments(command)
    return parser


def add_demo(commands: Commands) -> argparse.ArgumentParser:
    """``ordo demo``: bots play a whole game."""
    demo = commands.add_parser("demo", help="watch bots play a whole game through the server")
    demo.add_argument("game", metavar="GAME", help="the game id, as `ordo games` lists it")
    demo.add_argument(
        "--seats", type=int, help="the number of seats (default: the fewest the game takes)"
    )
    demo.add_argument(
        "--policy", choices=POLICIES, default="heuristic", help="the bots' policy (%(default)s)"
    )
    demo.add_argument(
        "--max-turns",
        type=int,
        default=DEFAULT_MAX_TURNS,
        metavar="K",
        help="stop after K turns (default %(default)s)",
    )
    return demo


def add_play(commands: Commands) -> argparse.ArgumentParser:
    """``ordo play``: people play seats against bots in this terminal."""
    play = commands.add_parser(
        "play",
        help="play seats of a game against bots in this terminal",
        description="Play a game against bots: each turn shows your seat's table and numbers "
        "your legal moves; type a move's key (? for help, q to quit).",
    )
    play.add_argument("game", metavar="GAME", help="the game id, as `ordo games` lists it")
    play.add_argument(
        "--seats", type=int, help="the number of seats (default: the fewest the game takes)"
    )
    play.add_argument(
        "--people",
        default="1",
        metavar="SEATS",
        help="the seats people play, counted from 1 and comma-separated, sharing this terminal "
        "in turn (default %(default)s)",
    )
    play.add_argument(
        "--bots",
        "--bot",
        choices=POLICIES,
        default="heuristic",
        help="the bots' policy (%(default)s; search plays best, in about a tenth of a second)",
    )
    play.add_argument(
        "--save",
        metavar="FILE",
        help=f"save the game's record to FILE (a {records.SUFFIX} file) when it ends or you leave",
    )
    return play


def add_replay(commands: Commands) -> None:
    """``ordo replay``: a saved game, step by step."""
    replay = commands.add_parser(
        "replay",
        help="watch a saved game again, step by step",
        description="Replay a saved game through the server, which checks it: step forward "
        "and back, jump to a step, or run to the end (? for the keys).",
    )
    replay.add_argument("file", metavar="FILE", help="the record, as `ordo play --save` wrote it")
    who = replay.add_mutually_exclusive_group()
    who.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="watch as seat N sees the game, counted from 1 (the default: the seat of whoever "
        "saved it, if the record names one)",
    )
    who.add_argument(
        "--spectator",
        action="store_true",
        help="watch as a spectator sees it (the default for a record that names no seat)",
    )
    who.add_argument(
        "--reveal", action="store_true", help="show every seat's cards (finished games only)"
    )


def add_host(commands: Commands) -> argparse.ArgumentParser:
    """``ordo host``: the server keeps a game, whose links are printed."""
    hosting = commands.add_parser(
        "host",
        help="have the server keep a game, and print a link for each person at the table",
        description="Host a game on a server with a table store: each person plays their seat "
        "from their own device, through their link (the playground, or ordo join).",
    )
    hosting.add_argument("game", metavar="GAME", help="the game id, as `ordo games` lists it")
    hosting.add_argument(
        "--seats", type=int, help="the number of seats (default: the fewest the game takes)"
    )
    hosting.add_argument(
        "--people",
        metavar="SEATS",
        help="the seats people play, counted from 1 and comma-separated (default: every seat); "
        "bots play the others",
    )
    hosting.add_argument(
        "--bots", choices=POLICIES, default="heuristic", help="the bots' policy (%(default)s)"
    )
    hosting.add_argument(
        "--url",
        help=f"the server's HTTP address for the links (default: the target's host, port "
        f"{HTTP_PORT})",
    )
    return hosting


def add_join(commands: Commands) -> None:
    """``ordo join``: a hosted table's seat played in this terminal."""
    join = commands.add_parser(
        "join",
        help="play a hosted table's seat in this terminal, from its link",
        description="Play the seat of a link that ordo host (or the playground) gave: the "
        "table's moves show as they happen, and you are asked for yours (? for help).",
    )
    join.add_argument("link", metavar="LINK", help="the seat's link: http://HOST:PORT/#table=…")


def add_game_arguments(command: argparse.ArgumentParser) -> None:
    """The arguments of a command that deals a game: its seed, language and options."""
    command.add_argument(
        "--seed", type=int, default=0, help="the deal's seed (0: the server picks)"
    )
    command.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="the game's language, for games that have one (default: the terminal's, "
        "from LANG; English when it is not Portuguese)",
    )
    command.add_argument(
        "--hide-results",
        action="store_true",
        help="do not print what players are meant to work out (the results of Sequence "
        "Numbers' equation cards)",
    )
    command.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set one of the game's options, as `ordo games` lists them (repeatable), "
        "e.g. --option rounds=1",
    )


def channel_credentials(tls: bool, ca_file: str | None) -> grpc.ChannelCredentials | None:
    """The credentials of ``--tls`` and ``--ca-file``: None for a plaintext connection."""
    if ca_file is not None:
        with open(ca_file, "rb") as roots:
            return grpc.ssl_channel_credentials(root_certificates=roots.read())
    return grpc.ssl_channel_credentials() if tls else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be positive")
    if args.command == "demo" and args.max_turns < 1:
        parser.error("--max-turns must be at least 1")
    if args.command in ("demo", "play", "host") and not 0 <= args.seed < SEED_LIMIT:
        parser.error(f"--seed must be in 0..{SEED_LIMIT - 1}")
    try:
        credentials = channel_credentials(args.tls, args.ca_file)
    except OSError as error:
        parser.error(f"--ca-file: {error.strerror or error}: {args.ca_file}")
    target, token = args.target, ""
    if args.command == "join":
        try:
            link = parse_link(args.link)
        except ValueError as error:
            parser.error(str(error))
        target, token = join_target(link.base_url, args.target), link.token
    try:
        with Client(
            target, timeout=args.timeout, credentials=credentials, seat_token=token
        ) as client:
            if args.command == "host":
                return host(client, args, sys.stdout)
            if args.command == "join":
                return join_table(Seat(client, link, sys.stdin, sys.stdout))
            if args.command == "games":
                print_games(client, sys.stdout)
                return EXIT_OK
            if args.command == "play":
                return play(client, args, sys.stdin, sys.stdout)
            if args.command == "replay":
                return replay(client, args, sys.stdin, sys.stdout)
            return demo(client, args, sys.stdout)
    except UsageError as error:
        parser.error(str(error))  # exits with EXIT_USAGE
    except OrdoError as error:
        print(f"ordo: {server_error_text(error, args.target)}", file=sys.stderr)
        return EXIT_SERVER_ERROR
    except BrokenPipeError:
        # The reader has had enough (``ordo demo … | head``): stop quietly. Python flushes
        # stdout again at exit; pointed at /dev/null, that flush cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def join_target(base_url: str, target: str) -> str:
    """The gRPC address ``ordo join`` calls: ``--target`` when given, else the link's host on
    the gRPC port."""
    if target != DEFAULT_TARGET or TARGET_ENV in os.environ:
        return target
    host = base_url.split("://", 1)[-1].rsplit(":", 1)[0]
    return f"{host}:{GRPC_PORT}"


def host(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """Host a game and print its links; returns the exit code."""
    info, options, _, seats = prepare(client, args, args.bots, args.seats)
    people = list(range(seats)) if args.people is None else people_seats(args.people, seats)
    bots = [seat for seat in range(seats) if seat not in people]
    dealt = client.new_game(
        options, seats, args.seed, bots=dict.fromkeys(bots, args.bots), host=True
    )
    base_url = args.url or f"http://{args.target.rsplit(':', 1)[0]}:{HTTP_PORT}"
    for line in host_links(dealt, base_url, info.title, bots, args.bots):
        print(line, file=out)
    return EXIT_OK


def server_error_text(error: OrdoError, target: str) -> str:
    """A failed call for people: the server's message, or for a server that cannot be reached,
    where the command looked and how to point it elsewhere."""
    if error.code == grpc.StatusCode.UNAVAILABLE and not error.reason:
        return (
            f"cannot reach a server at {target} (UNAVAILABLE: {error.message}). Is one running "
            f"there? Start one (make run in Ordo's checkout, or ordo-server), or give its address "
            f"with --target HOST:PORT or {TARGET_ENV}; add --tls or --ca-file if it speaks TLS."
        )
    return f"server error: {error}"


def terminal_language(environ: Mapping[str, str] = os.environ) -> str:
    """The language of ``--lang`` the terminal's locale asks for: ``pt_br`` for Portuguese,
    ``en`` for anything else."""
    for name in LOCALE_VARIABLES:
        if environ.get(name):
            return "pt_br" if environ[name].lower().startswith("pt") else "en"
    return "en"


def print_games(client: Client, out: TextIO) -> None:
    """Print each game's id, title, seats, turn kind, policies and options with defaults."""
    for index, game in enumerate(client.list_games().games):
        if index:
            print(file=out)
        print(f"{game.id}: {game.title}", file=out)
        print(f"  seats: {seat_counts_text(game)}", file=out)
        print(f"  simultaneous turns: {'yes' if game.simultaneous else 'no'}", file=out)
        print(f"  policies: {', '.join(game.policies)}", file=out)
        for policy in game.policy_details:
            if policy.max_search_iterations:
                print(
                    f"    {policy.name}: {policy.default_search_iterations} iterations by "
                    f"default, at most {policy.max_search_iterations}",
                    file=out,
                )
        if not game.options:
            print("  options: none", file=out)
            continue
        print("  options:", file=out)
        for option in game.options:
            allowed = (
                f" (one of {', '.join(option.allowed_values)})" if option.allowed_values else ""
            )
            print(f"    {option.name} = {option.default_value}{allowed}", file=out)
            print(f"      {option.description}", file=out)


def seat_counts(game: common.GameInfo) -> list[int]:
    """Every seat count a game takes (from its range, for a server that does not list them)."""
    return list(game.seat_counts) or list(range(game.min_seats, game.max_seats + 1))


def seat_counts_text(game: common.GameInfo) -> str:
    """A game's seat counts for people: a range (``2-10``), or the counts themselves when some
    between the fewest and the most are not played (``2, 3, 4, 6``)."""
    counts = seat_counts(game)
    if counts == list(range(game.min_seats, game.max_seats + 1)):
        return f"{game.min_seats}-{game.max_seats}"
    return ", ".join(map(str, counts))


def set_language(options: Message, language: str) -> bool:
    """Set the ``language`` enum field of a game's options to the value named ``*_LANGUAGE``.

    Returns False when the options have no such field; raises ``UsageError`` when no value of
    the field's enum ends with the language.
    """
    field = options.DESCRIPTOR.fields_by_name.get(LANGUAGE_FIELD)
    if field is None or field.enum_type is None:
        return False
    number = enum_number(field, language)
    if number is None:
        names = ", ".join(value.name for value in field.enum_type.values if value.number)
        raise UsageError(f"no language {language!r} in {field.enum_type.name}: {names}")
    setattr(options, LANGUAGE_FIELD, number)
    return True


def enum_number(field: Any, text: str) -> int | None:
    """The number of the value of ``field``'s enum named ``text``, in full or without the enum's
    prefix (``EN`` for ``FORA_DE_ORDEM_LANGUAGE_EN``); None when there is none."""
    text = text.upper()
    for value in field.enum_type.values:
        if value.number and (value.name == text or value.name.endswith("_" + text)):
            number: int = value.number
            return number
    return None


def set_option(options: Message, assignment: str) -> None:
    """Set one option of a game's options message from ``NAME=VALUE`` (an enum value by its name,
    a flag as true or false, a number); raises ``UsageError`` for anything else."""
    name, _, text = assignment.partition("=")
    scalars = {
        field.name: field
        for field in options.DESCRIPTOR.fields
        if not field.is_repeated and field.message_type is None
    }
    field = scalars.get(name)
    if field is None or "=" not in assignment:
        names = ", ".join(scalars)
        raise UsageError(f"--option takes NAME=VALUE with a NAME of {names}, not {assignment!r}")
    current = getattr(options, name)
    value: object = text
    if field.enum_type is not None:
        value = enum_number(field, text)
        # Values are named for people without the enum's prefix, that of its *_UNSPECIFIED.
        prefix = field.enum_type.values[0].name.removesuffix("UNSPECIFIED")
        valid = "one of " + ", ".join(
            v.name.removeprefix(prefix) for v in field.enum_type.values if v.number
        )
    elif isinstance(current, bool):
        value = {"true": True, "false": False}.get(text.lower())
        valid = "true or false"
    elif isinstance(current, int):
        value = int(text) if text.lstrip("-").isdigit() else None
        valid = "a whole number"
    else:
        valid = "a text"
    try:
        if value is None:
            raise ValueError(text)
        setattr(options, name, value)
    except (ValueError, TypeError):
        raise UsageError(f"--option {name}: {text!r} is not {valid}") from None


def prepare(
    client: Client, args: argparse.Namespace, policy: str, seats: int | None
) -> tuple[common.GameInfo, common.GameOptions, Renderer, int]:
    """The game, its options (``--lang``), its renderer and its seat count (the fewest when
    ``seats`` is None), checked against what the server says of it; raises ``UsageError``."""
    games = {game.id: game for game in client.list_games().games}
    info = games.get(args.game)
    if info is None:
        raise UsageError(f"unknown game {args.game!r}; the server runs {', '.join(games)}")
    if policy not in info.policies:
        raise UsageError(f"{info.id} has no policy {policy!r}: {', '.join(info.policies)}")
    seats = seat_counts(info)[0] if seats is None else seats
    if seats not in seat_counts(info):
        raise UsageError(f"{info.id} takes {seat_counts_text(info)} seats, not {seats}")
    options = game_options(info.id)
    if args.lang is not None and not set_language(getattr(options, info.id), args.lang):
        print(f"ordo: {info.id} has no language option; --lang ignored", file=sys.stderr)
    if args.lang is None:
        set_language(getattr(options, info.id), terminal_language())
    for assignment in args.option:
        set_option(getattr(options, info.id), assignment)
    return info, options, renderer(info.id, results=not args.hide_results), seats


def people_seats(text: str, seats: int) -> list[int]:
    """The seats of ``--people`` (counted from 1 there), 0-based: distinct seats of the game, at
    least one."""
    try:
        people = [int(part) - 1 for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--people takes seat numbers separated by commas, not {text!r}") from None
    if len(set(people)) != len(people) or not all(0 <= seat < seats for seat in people):
        raise UsageError(f"--people must name distinct seats of 1..{seats}, not {text!r}")
    return people


def play(client: Client, args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """Seat people at a game against bots and play it to its end; returns the exit code."""
    info, options, render, seats = prepare(client, args, args.bots, args.seats)
    people = people_seats(args.people, seats)
    table = Table(client, info, render, people, args.bots, inp, out, save_to=args.save)
    return play_game(table, options, seats, args.seed)


def replay(client: Client, args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    """Watch the record in ``args.file`` again; returns the exit code."""
    try:
        record = records.load(args.file)
    except OSError as error:
        raise UsageError(f"{args.file}: {error.strerror or error}") from None
    except ValueError as error:
        raise UsageError(f"{args.file}: {error}") from None
    render = renderer(record_game_id(record))
    if args.seat is not None and args.seat < 1:
        raise UsageError(f"--seat counts seats from 1, not {args.seat}")
    seat = None if args.seat is None else args.seat - 1
    kept = record.kept_by.WhichOneof("viewer") == "seat"
    if args.seat is None and not args.spectator and not args.reveal and kept:
        seat = record.kept_by.seat  # what the record's keeper saw
    return watch(client, record, render, seat, args.reveal, inp, out)


def demo(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """Play a whole game with bots, printing it as a spectator sees it; returns the exit code.
    The server plays every seat (``bots``), so that the demo asks only what a spectator may see:
    on a server that requires seat tokens, with the spectator's token."""
    info, options, render, seats = prepare(client, args, args.policy, args.seats)

    bots = dict.fromkeys(range(seats), args.policy)
    started = client.new_game(options, seats, args.seed, bots=bots)
    state, status = started.state, started.status
    token = started.spectator_token  # empty when the server gives no tokens
    spectator = common.Viewer(spectator=True)
    print(f"{info.title}: {seats} seats, {seed_text(started.seed)}, {args.policy} bots", file=out)
    print(render.render_view(client.get_view(state, seat_token=token).view), file=out)
    turn = 0
    while not status.finished:
        if turn >= args.max_turns:
            print(f"\nstopped after {turn} turns, before the end of the game", file=out)
            return EXIT_OK
        acting = list(status.seats_to_act)
        if not acting:
            print("ordo: the game is not over but no seat is to act", file=sys.stderr)
            return EXIT_SERVER_ERROR
        if not info.simultaneous:
            acting = acting[:1]
        turn += 1
        events: list[common.Event] = []
        for seat in acting:
            if seat not in status.seats_to_act:  # an earlier action this turn changed who acts
                continue
            applied = client.play_bot(state, seat, viewer=spectator, seat_token=token)
            state, status = applied.state, applied.status
            events.extend(event for event in applied.events if event.public)
        print(f"\nturn {turn}: {seats_text(acting)}", file=out)
        for line in render.render_events(events):
            print(f"  {line}", file=out)
        print(render.render_view(client.get_view(state, seat_token=token).view), file=out)
    print_outcome(status.outcome, turn, out)
    return EXIT_OK


def seed_text(seed: int) -> str:
    """``seed 42``, or what a server that keeps its seeds to itself (seat tokens) deals with."""
    return f"seed {seed}" if seed else "a seed the server keeps"


def print_outcome(outcome: common.Outcome, turns: int, out: TextIO) -> None:
    """Print why and when the game ended, every seat's score and the winners."""
    print(f"\ngame over after {turns} turns: {termination_text(outcome.termination)}", file=out)
    better = "lower" if outcome.lower_is_better else "higher"
    scores = ", ".join(f"{seat_text(seat)}: {score}" for seat, score in enumerate(outcome.scores))
    print(f"scores ({better} is better): {scores}", file=out)
    winners = ", ".join(seat_text(seat) for seat in outcome.winners) or "none (a draw)"
    print(f"winners: {winners}", file=out)


if __name__ == "__main__":
    raise SystemExit(main())
