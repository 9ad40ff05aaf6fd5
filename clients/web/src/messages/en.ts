// The page in English: every text it shows, the words of the notation, each game's prompts, log
// lines and end-of-game reasons. Another language is a copy of this file, translated, typed as
// `Messages` (the compiler then finds every text it lacks), and one line in src/i18n.ts.

/** "1 card", "2 cards": a count with the noun that agrees with it. */
const counted =
  (one: string, many: string) =>
  (n: number): string =>
    `${n} ${n === 1 ? one : many}`;

/** A list for a sentence: "A", "A and B", "A, B and C". */
const listed = (items: string[]): string =>
  items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

const ORDINAL_SUFFIXES: Record<number, string> = { 1: "st", 2: "nd", 3: "rd" };

export const en = {
  /** The language's tag (BCP 47), for the page's `lang`. */
  code: "en",
  /** Its name in itself, for the switch. */
  name: "English",
  /** The value of Fora de Ordem's `language` option that asks for questions in it. */
  questionLanguage: "EN",
  listed,

  page: {
    title: "Ordo playground",
    tagline: "Play and watch Ordo's card games, against bots or friends on one screen.",
    language: "Language",
    sound: "Sound on my turn",
    newGame: "New game",
    game: "Game",
    seats: "Seats",
    seed: "Seed",
    seedHelp: "0: the server picks",
    options: "Options",
    players: "Players",
    botSpeed: "Bot speed",
    speeds: { slow: "slow", normal: "normal", instant: "instant" },
    start: "Start",
    openGame: "Open a saved game",
    person: "person",
    bot: (policy: string) => `bot: ${policy}`,
    policies: { search: "search (strongest)", heuristic: "heuristic", random: "random" } as Record<
      string,
      string
    >,
    usual: "usual",
    rules: "Rules",
    rulesInFull: "The rules in full",
    log: "What happened",
    recent: "Just now",
    hideResults: "Hide the results (work them out)",
    cover: (name: string) => `${name} is to act: pass the screen.`,
    showHand: (name: string) => `Show ${name}'s hand`,
    hand: (name: string) => `${name}: hand`,
    yourHand: "your hand",
    saveGame: "Save game",
    takeBack: "Take back my last move",
    takeBackRefused:
      "This server keeps every game moving forward (a revision fence), so moves cannot be taken back here.",
    seatName: (seat: string) => seat.charAt(0).toUpperCase() + seat.slice(1),
    you: (name: string) => `${name} (you)`,
    botName: (name: string) => `${name} (bot)`,
    newGameLine: (title: string, seats: number, seed: string) =>
      `${title}: a new game for ${seats} seats (${seed}).`,
    seedKept: "a seed the server keeps",
    seedShown: (seed: string) => `seed ${seed}`,
    abandon: "Abandon the game in progress and start a new one?",
    unreachable: (why: string) => `Cannot reach the server: ${why}`,
    refused: (why: string) => `Refused: ${why}`,
    over: "The game is over.",
    yourMove: (name: string) => `${name}: your move.`,
    soFar: (steps: string) => `So far: ${steps}.`,
    waiting: (names: string[]) => `Waiting for ${listed(names)}.`,
    back: "Back",
    yourMoveGroup: "Your move",
    yourTurnTitle: "Your turn",
    outcome: {
      wins: (who: string[]) => `${listed(who)} ${who.length === 1 ? "wins" : "win"}!`,
      draw: "A draw: nobody wins.",
      seat: "Seat",
      score: "Score",
      from: "Where it comes from",
      winner: "★ winner",
      lowerIsBetter: (unit: string) => `${unit}: lower is better`,
      higherIsBetter: (unit: string) => `${unit}: higher is better`,
      playAgain: "Play again",
      playAgainHelp: "the same game, seats and options, with a new deal",
    },
    friends: {
      host: "Play with friends",
      title: "Play with friends",
      intro:
        "The server keeps this table. Give each person their own link: it plays their seat from their own device. The spectators' link shows only what is public.",
      spectators: "Spectators",
      linkOf: (who: string) => `${who}'s link`,
      copy: "Copy",
      copied: "Copied",
      open: "Open",
      tableTitle: (title: string) => `${title}: a table with friends`,
      tableLine: (title: string, seats: number, seat: string | null) =>
        `${title}: a table for ${seats} seats; ${seat ? `you play ${seat}` : "you watch"}.`,
      rejoining: (why: string) => `Connection lost (${why}): joining again…`,
    },
    replay: {
      title: "Saved game",
      watchAs: "Watch as",
      spectator: "a spectator",
      everyCard: "every card (game over)",
      first: "First",
      back: "Back",
      forward: "Forward",
      last: "Last",
      step: "Step",
      deal: "the deal",
      moved: (name: string) => `${name} moved`,
      at: (step: number, last: number, what: string) => `Step ${step} of ${last}: ${what}.`,
      over: "The game is over.",
      leave: "Back to the game",
      close: "Close the saved game",
      cannot: (why: string) => `Cannot open this game: ${why}`,
      notAFile: "this file is not a saved game",
    },
  },

  /** The words of the notation (src/notation.ts): people count seats, rows and sides from 1. */
  notation: {
    seat: (n: string) => `seat ${n}`,
    team: (letter: string) => `team ${letter}`,
    row: (n: string) => `row ${n}`,
    side: (n: string) => `side ${n}`,
    cell: (row: string, column: string) => `r${row}c${column}`,
    ordinal: (rank: number): string => {
      const teen = rank % 100 > 10 && rank % 100 < 20;
      return `${rank}${teen ? "th" : (ORDINAL_SUFFIXES[rank % 10] ?? "th")}`;
    },
    zeroCard: "the zero card",
    previousCorrect: "previous is correct",
    previousWrong: "previous is wrong",
    bombs: (n: number) => `[${n}b]`,
  },

  count: {
    cards: counted("card", "cards"),
    bullheads: counted("bullhead", "bullheads"),
    bombs: counted("bomb", "bombs"),
    points: counted("point", "points"),
    sequences: counted("sequence", "sequences"),
    hands: counted("hand", "hands"),
  },

  /** Option names and values, by game option name; a name not here is shown as it is. */
  options: {
    names: {
      too_low_rule: "card lower than every row",
      end: "end of the game",
      threshold: "bullheads that end the game",
      hands: "hands to play",
      tactical_deck: "tactical deck",
      zero_card: "zero card",
      teams: "teams",
      sequence_overlap: "a new sequence may share",
      length: "length",
      discard_scoring: "the discard pile scores",
      language: "questions in",
      rounds: "rounds",
      starting_seat: "first to play",
    } as Record<string, string>,
    values: {
      CHOOSE_ROW: "its player chooses the row",
      TAKE_CHEAPEST_ROW: "the cheapest row is taken",
      PENALTY_THRESHOLD: "at a bullhead total",
      FIXED_HANDS: "after a number of hands",
      ONE_CELL: "one cell (classic)",
      ANY: "any cells",
      SHORT: "short",
      LONG: "long",
      PER_CARD: "1 point a card",
      PER_ROW: "1 point an abandoned row",
      PT_BR: "Portuguese (Brazil)",
      EN: "English",
    } as Record<string, string>,
  },

  sixNimmt: {
    unit: "bullheads",
    prompts: {
      card: "Choose the card you play this turn.",
      row: "Your card is lower than every row: choose the row you take.",
    } as Record<string, string>,
    play: (card: string) => `play ${card}`,
    take: (row: string) => `take ${row}`,
    table: "6 nimmt! table: four rows and the seats",
    rowTarget: (row: string, cards: string, heads: string) => `take ${row} (${cards}, ${heads})`,
    sixth: "6th",
    takes: "takes",
    handTurn: (hand: number, turn: number) => `Hand ${hand}, turn ${turn}`,
    handOver: (hand: number) => `Hand ${hand} is over`,
    revealedCard: (card: string) => `revealed ${card}`,
    ownSelection: (card: string) => `✓ selected ${card}`,
    selected: "✓ selected",
    choosing: "… choosing",
    selectedMark: "selected",
    stats: (total: number, taken: number, hand: number) =>
      `${total} ✱ total · ${taken} taken · ${hand} in hand`,
    seatLabel: (name: string, heads: string, hand: string, what: string) =>
      `${name}: ${heads}, ${hand} in hand${what ? `, ${what}` : ""}`,
    noCards: "no cards in hand",
    revealing: "Revealed together, placed lowest first",
    selectedCard: (who: string, card: string) => `${who} selected ${card}.`,
    selectedACard: (who: string) => `${who} selected a card.`,
    revealed: (cards: string[]) => `Revealed: ${cards.join(", ")}.`,
    placed: (who: string, card: string, row: string) => `${who}'s ${card} goes to ${row}.`,
    tookRow: (who: string, row: string, cards: string, heads: string) =>
      `${who} takes ${row}: ${cards} (${heads}).`,
    tooLow: (who: string, card: string) =>
      `${who}'s ${card} is lower than every row: they choose a row to take.`,
    handEnded: (hand: number, totals: string[]) => `Hand ${hand} ends: ${totals.join(", ")}.`,
    handDealt: (hand: number) => `Hand ${hand} is dealt.`,
    endThreshold: (who: string[], threshold: number) =>
      `${listed(who)} reached ${threshold} bullheads, so the game ended with that hand; the fewest bullheads win.`,
    endHands: (hands: number) =>
      `${hands === 1 ? "The one hand is" : `All ${hands} hands are`} played; the fewest bullheads win.`,
    perHand: (hand: number, heads: number) => `hand ${hand}: ${heads}`,
  },

  sequenceNumbers: {
    unit: "sequences",
    prompts: {
      card: "Choose a card to play.",
      cell: "Choose the cell for your chip.",
      removal: "Choose the chip to remove.",
      exchange: "Exchange this dead card for a new one?",
      discard: "No card of yours can be played: discard one.",
      five: "Your chip completes two fives: choose the one it locks.",
    } as Record<string, string>,
    aCard: "a card",
    card: (card: string) => `card ${card}`,
    exchange: "exchange this dead card",
    discard: "discard it (no playable card)",
    place: (cell: string) => `place a chip on ${cell}`,
    remove: (cell: string) => `remove the chip on ${cell}`,
    lock: (cells: string) => `lock ${cells}`,
    freeCorner: (cell: string) => `the free corner ${cell}`,
    numberAt: (n: number, cell: string) => `${n} at ${cell}`,
    anyCell: "any cell",
    removeWord: "remove",
    chipOf: (team: string) => `chip of ${team}`,
    inSequence: "in a sequence",
    board: "Sequence Numbers board and seats",
    deck: (n: number) => `Deck: ${counted("card", "cards")(n)}`,
    toWin: (n: number) => `Sequences to win: ${n}`,
    playing: "Playing",
    seatLabel: (name: string, team: string, sequences: string, cards: string, toAct: boolean) =>
      `${name}, ${team} with ${sequences}, ${cards}${toAct ? ", to act" : ""}`,
    seatStats: (sequences: number, cards: number, last: string) =>
      `${sequences} seq · ${cards} cards · last: ${last}`,
    chipPlaced: (who: string, card: string, team: string, where: string) =>
      `${who} plays ${card}: a chip of ${team} on ${where}.`,
    chipRemoved: (who: string, team: string, cell: string) =>
      `${who} plays MINUS: ${team}'s chip leaves ${cell}.`,
    exchanged: (who: string, card: string) => `${who} exchanges the dead card ${card}.`,
    drew: (who: string, card: string) => `${who} draws ${card}.`,
    discarded: (who: string, card: string) => `${who} has no playable card and discards ${card}.`,
    completed: (team: string, cells: string) => `${team} completes a sequence: ${cells}!`,
    reshuffled: (n: number) =>
      `The discard piles are shuffled into a new deck of ${counted("card", "cards")(n)}.`,
    teamWon: (team: string, seats: string[]) => `${team} (${listed(seats)}) wins.`,
    turnLimit: "The turn limit is reached: a draw.",
    endSequences: (team: string, n: number) =>
      `${team} completed ${counted("sequence", "sequences")(n)} first and wins.`,
    endTurnLimit: (turns: number) => `${turns} turns went by without a winner: the game is a draw.`,
    teamSequences: (team: string, sequences: string[]) =>
      sequences.length ? `${team}: ${sequences.join("; ")}` : `${team}: no sequence`,
  },

  upOrDown: {
    unit: "points",
    prompts: {
      card: "Choose the card you play into the circle.",
      take: "Choose the neighbour you take: the next lower or the next higher card.",
      place: "Choose where the taken card goes in your display.",
      draw: "Choose the pile you draw from.",
    } as Record<string, string>,
    colours: {
      YELLOW: "yellow",
      BLUE: "blue",
      RED: "red",
      GREEN: "green",
      PURPLE: "purple",
      ORANGE: "orange",
    } as Record<string, string>,
    cardAria: (card: number, colour: string) => `card ${card}, ${colour}`,
    play: (card: string) => `play ${card}`,
    takeNeighbour: (card: string, lower: boolean) =>
      `take ${card} (the next ${lower ? "lower" : "higher"})`,
    placement: {
      EXTEND: (row: string) => `extend ${row}`,
      NEW_ROW: (row: string) => `start ${row}`,
      ABANDON: (row: string) => `abandon ${row} and restart it`,
    } as Record<string, (row: string) => string>,
    draw: {
      FACE_UP: "draw the face-up card",
      FACE_DOWN: "draw from the face-down pile",
      NONE: "draw nothing (both piles are empty)",
    } as Record<string, string>,
    table: "Up or Down? table: the circle, the piles and every display",
    circle: "circle",
    circleOrder: "low → high ↻",
    faceDown: "face down",
    faceDownShort: "down",
    faceUp: (n: number) => `face up (${n})`,
    faceUpShort: (n: number) => `up (${n})`,
    faceDownPile: (n: number) => `face-down pile, ${counted("card", "cards")(n)}`,
    faceUpEmpty: "face-up pile, empty",
    toAct: "◀ to act",
    seatLabel: (name: string, points: string, hand: number, discard: number) =>
      `${name}: ${points}, ${hand} cards in hand, ${discard} discarded`,
    seatStats: (points: number, hand: number, discard: number, abandoned: number) =>
      `${points} points · ${hand} in hand · discard ${discard} · abandoned ${abandoned}`,
    seatStatsShort: (points: number, hand: number, discard: number) =>
      `${points} pts · ${hand} in hand · discard ${discard}`,
    rowLabel: (row: string, cards: string) => `${row}: ${cards}`,
    empty: "empty",
    noRows: "no rows yet",
    up: "↑ up",
    down: "↓ down",
    abandonButton: "✕ abandon",
    noCards: "no cards in hand",
    turnPlayed: (who: string, card: number, taken: number, where: string, drew: string) =>
      `${who} plays ${card}, takes ${taken}: ${where}${drew}.`,
    discardedCards: (n: number) => ` (${counted("card", "cards")(n)} discarded)`,
    drewFaceUp: (card: number) => `, draws ${card} face up`,
    drewFaceDown: ", draws face down",
    drew: (who: string, card: number) => `${who} draws ${card}.`,
    finalScores: (scores: string[]) => `Final scores: ${scores.join(", ")}.`,
    end: "Both piles are empty and every hand is played out; the most points win.",
    rowScore: (length: number, colour: number, points: number) =>
      `${length} × ${colour} = ${points}`,
    discardScore: (points: number) => `discard ${points}`,
    noRowsScore: "no rows",
  },

  foraDeOrdem: {
    unit: "bombs",
    prompts: {
      card: "Choose the card you play.",
      side: "Choose the item you play it on.",
    } as Record<string, string>,
    colours: {
      YELLOW: "yellow",
      PURPLE: "purple",
      PINK: "pink",
      BLUE: "blue",
      GREEN: "green",
      ORANGE: "orange",
    } as Record<string, string>,
    aCard: "a card",
    card: (card: string) => `card ${card}`,
    on: (where: string) => `on ${where}`,
    playOn: (where: string) => `play on ${where}`,
    sideItem: (side: string, item: string) => `${side} (“${item}”)`,
    cardAria: (card: string, owner: string, colour: string) => `${card}, ${owner}'s ${colour} card`,
    prev: "prev",
    board: "Fora de Ordem board: the question, its five sides and the stacks",
    round: (round: number, rounds: number) => `Round ${round} of ${rounds}`,
    noCards: "no cards",
    noCardsInHand: "no cards in hand",
    playing: "Playing",
    sideLabel: (side: string, cards: string, top: string) =>
      `${side}, ${cards}${top ? `, top ${top}` : ""}`,
    seatLabel: (name: string, colour: string, bombs: number, hand: number, deck: number) =>
      `${name} (${colour}): ${bombs} bombs, ${hand} in hand, ${deck} in deck`,
    seatStats: (bombs: number, hand: number, deck: number) =>
      `${bombs} bombs · ${hand} in hand · ${deck} in deck`,
    seatStatsShort: (bombs: number, hand: number, deck: number) =>
      `${bombs} ✹ · ${hand} hand · ${deck} deck`,
    answerTitle: (round: number) => `Round ${round}: the answer`,
    answerLabel: (round: number) => `the answer of round ${round}`,
    takes: (item: string, who: string, cards: string, bombs: string) =>
      `“${item}”: ${who} takes ${cards}, ${bombs}`,
    allRight: (item: string) => `“${item}”: every card was right`,
    played: (who: string, card: string, where: string) => `${who} plays ${card} on ${where}.`,
    answer: (ranked: string[]) => `The answer: ${ranked.join("; ")}.`,
    resolvedTaken: (where: string, who: string, cards: string, bombs: string) =>
      `${where}: ${who} takes ${cards} with ${bombs}.`,
    resolvedRight: (where: string) => `${where}: every card was right.`,
    refilled: (n: number) => `Every seat draws ${counted("card", "cards")(n)}.`,
    drew: (who: string, cards: string) => `${who} draws ${cards}.`,
    roundStarted: (round: number, category: string, who: string) =>
      `Round ${round}: ${category}; ${who} starts.`,
    gameEnded: (bombs: string[]) => `The game ends: ${bombs.join(", ")}.`,
    end: (rounds: number) =>
      `${rounds === 1 ? "The one round is" : `All ${rounds} rounds are`} played; the fewest bombs win.`,
    perRound: (round: number, bombs: number) => `round ${round}: ${bombs}`,
    noBombs: "no bombs taken",
  },
};

/** What every language gives: the English catalogue's shape. */
export type Messages = typeof en;
