"""Fora de Ordem (Adoleta): docs/rules/fora_de_ordem.md, seed "Fora de Ordem Rulebook".

Kind: 2 to 6 seats, chance (each seat's deck order, the question cards), hidden information (hands,
decks, the ranks on the back of the question card), one seat acts at a time. Each round shows a
question card (a category and 5 items, one per side of the board); from the round's starting seat
in seat order, each seat puts one card from hand on top of one side (``Play``). When every seat has
played 3 cards the round is resolved in the same action: the ranks are revealed, each side is
judged bottom-up and examined top-down, hands are refilled to 4 and the next question is shown.

Modules: ``data`` (the player decks, the card labels, the question bank ``questions.json``),
``rules`` (values, the deal, the round and its resolution, the consistency check), ``bots`` (the
``heuristic`` player), ``engine`` (the shared protocol and ``ENGINE``, the registered engine).

Rules as implemented:
- Number cards name 1 to 3 ranks; "previous card is correct" / "previous card is wrong" may only go
  on a side that already has a card. A side has no limit and seats may cover their own cards.
- Resolution: bottom-up, a number card is correct when the item's rank is one of its numbers; a
  special copies (or inverts) the verdict of the card directly beneath it, so specials chain. From
  the top down, correct cards are discarded from the game; the owner of the first wrong card takes
  it and every card beneath it (anyone's) into their face-up score pile.
- Outcome: bombs in the score pile, lower is better; a tie goes to the fewest bombs on the card
  left in hand; if still tied, every tied seat wins.

Decisions:
- Player decks [decision, docs/rules/fora_de_ordem.md]: the real composition is not public;
  ``data.DECK_COMPOSITION`` is the table of the rules (19 cards per seat, 50 bombs), which
  reproduces every figure of the seed's example. Seat ``i`` plays colour ``i`` (yellow, purple,
  pink, blue, green, orange).
- A card is the int ``seat * 19 + position`` in the composition, so its owner is part of its id.
- Ties on a question card give the tied items the same set of consecutive ranks ({2, 3} and
  {2, 3}); a number card on a tied item is correct when it names any of them. A card stores its
  ranks as a standard competition ranking (1, 2, 2, 4, 5), from which the sets follow.
- The question bank is ``questions.json`` (pt-BR and English); the ``language`` option picks the
  texts. ``custom_questions`` in NewGame replace the bank (used as supplied, whatever the
  language); a bad card is refused naming the card and the problem. The state holds only the
  cards of its rounds, never the bank; custom cards without an id are named ``custom-N``.
  On the wire, bank cards travel as their ids: a change to ``questions.json`` changes what
  stored states mean, so it comes with a new ``RULES_VERSION``.
- ``rounds`` is 1..6 (default 6): a deck of 19 holds 4 + 3 * 5 cards, so six rounds use it all.
  ``starting_seat`` (default 0) starts round 1; the start passes to the next seat each round.
- The ranks are public only in the ``RanksRevealed`` event of the round's resolution; the view
  shows the current question's category and items. The cards left in hand are revealed in the
  ``GameEnded`` event for the tie-break, and the view keeps hiding them.
- A seat that drew cards learns which in a ``CardsDrawn`` event addressed to it alone; everybody
  sees ``HandsRefilled``. A side with no card is not reported at resolution.
"""

from engines.fora_de_ordem.engine import ENGINE
from engines.fora_de_ordem.rules import GAME_ID, Action, Options, State, View

__all__ = ["ENGINE", "GAME_ID", "Action", "Options", "State", "View"]
