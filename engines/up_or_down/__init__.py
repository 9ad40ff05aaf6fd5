"""Up or Down? (Wolfgang Kramer & Michael Kiesling, Abacusspiele 2024): docs/rules/up_or_down.md.

Kind: 2 to 6 seats, chance (the deal), hidden information (hands, the face-down pile, the face-up
pile below its top, discarded faces), sequential turns from seat 0. One action (``Turn``) is one
whole turn: the hand card played into the circle, the neighbour taken (``LOWER`` or ``HIGHER``),
where the taken card goes (``EXTEND`` a row, start a ``NEW_ROW``, or ``ABANDON`` a row and restart
it) and the pile drawn from. Every part is checked, and the legal actions list exactly the legal
combinations. The game ends when both piles and every hand are empty; then each row scores its
length times the count of its most common colour, plus the discard pile per ``discard_scoring``.

Modules: ``data`` (the cards and their colours, the card sets of ``length``), ``rules`` (values,
the deal, the turn, scoring, the consistency check), ``bots`` (the ``heuristic`` player),
``engine`` (the shared protocol and ``ENGINE``, the registered engine).

Rules and decisions (docs/rules/up_or_down.md and this engine):
- Cards 1..126, every number unique, in six colours (yellow, blue, red, green, purple, orange).
  [decision: the real colour table is not public] each block of six consecutive numbers holds
  the six colours once, so each colour has 21 cards (``data.COLOUR_BLOCKS``, a fixed checked-in
  table). A real card's "black" and "white" numbers are the same value: no rule depends on them.
- Option ``length``: SHORT (default, the seed) plays cards 2 seats 1..42, 3 seats 1..60,
  4 seats 1..78, 5-6 seats 1..96; LONG plays 2 seats 1..54, 3 seats 1..78, 4 seats 1..102,
  5-6 seats 1..126.
- Setup: 3 cards to each seat, 6 cards into the circle, kept ascending; the rest is split with
  the face-down pile taking the larger half (one card more when the count is odd) and the rest
  face up, only its top card visible. Pile tops are the first card of each tuple. Seat 0 starts.
- The circle wraps: a card lower than the lowest or higher than the highest sits between the
  highest and the lowest, so its ``LOWER`` neighbour is the highest card and its ``HIGHER``
  neighbour the lowest, whichever end it went past. The circle holds 6 cards again after the
  take.
- A display holds at most 3 rows. A row of one card accepts any card; its second card fixes the
  direction for good; a longer row accepts only a card above its last card (ascending) or below
  it (descending) - numbers are unique, so a card is never equal to the last. A new row is
  allowed only with fewer than 3 rows and gets the next index (the turn must name it).
- Abandoning is always allowed ("cannot or do not want to"), for any row, even with fewer than
  3 rows: the row's cards go face down to the seat's discard pile and the taken card restarts it
  at the same index. Illegal placements are refused, so the seed's rule for mistakes found later
  (abandon the broken row) never applies.
- The draw: the turn names its pile, ``FACE_UP`` or ``FACE_DOWN`` while that pile has cards
  (when one is empty, only the other is legal), ``NONE`` only when both are empty.
- One action is one turn, so the state's revision counts the turns: seat ``revision % seats`` is
  to act. Every hand holds 3 cards when the piles run out, so play goes on for 3 more rounds and
  the game ends after (highest card - 6) turns, when every hand is empty.
- Scoring: each row scores its length times the count of its most common colour (8 cards with 3
  of one colour = 24; 2 cards of different colours = 2; 8 cards with 5 of one colour = 40). Option
  ``discard_scoring``: PER_CARD (default, the seed) adds 1 point per discarded card; PER_ROW
  [decision: the reading of one rules summary] 1 point per abandoned row. The highest total wins;
  ties share the win (termination ``ALL_CARDS_PLAYED``).
- Visibility [decision]: the rules hide discarded cards' faces and makes an exception only for
  one's own hand, so no view shows a discarded face, not even to the pile's owner; every seat's
  discard pile size and number of abandoned rows are public (they are what the pile scores). The
  faces were public while the row lay in its display, so this hides nothing a seat could not
  remember. A card drawn from the face-down pile is told to its drawer alone; a card drawn from
  the face-up pile is public, and so is the new top.
"""

from engines.up_or_down.engine import ENGINE
from engines.up_or_down.rules import GAME_ID, Action, Options, State, View

__all__ = ["ENGINE", "GAME_ID", "Action", "Options", "State", "View"]
