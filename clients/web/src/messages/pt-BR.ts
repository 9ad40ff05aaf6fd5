// A página em português do Brasil: a tradução de src/messages/en.ts, texto por texto.
import type { Messages } from "./en.ts";

/** "1 carta", "2 cartas": uma contagem com o substantivo que concorda com ela. */
const counted =
  (one: string, many: string) =>
  (n: number): string =>
    `${n} ${n === 1 ? one : many}`;

/** Uma lista para uma frase: "A", "A e B", "A, B e C". */
const listed = (items: string[]): string =>
  items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} e ${items.at(-1)}`;

export const ptBR: Messages = {
  code: "pt-BR",
  name: "Português (Brasil)",
  questionLanguage: "PT_BR",
  listed,

  page: {
    title: "Ordo: mesa de jogos",
    tagline:
      "Jogue e assista aos jogos de cartas do Ordo, contra bots ou com amigos na mesma tela.",
    language: "Idioma",
    sound: "Som na minha vez",
    newGame: "Novo jogo",
    game: "Jogo",
    seats: "Lugares",
    seed: "Semente",
    seedHelp: "0: o servidor escolhe",
    options: "Opções",
    players: "Jogadores",
    botSpeed: "Velocidade dos bots",
    speeds: { slow: "lenta", normal: "normal", instant: "instantânea" },
    start: "Começar",
    openGame: "Abrir um jogo salvo",
    person: "pessoa",
    bot: (policy: string) => `bot: ${policy}`,
    policies: { search: "busca (o mais forte)", heuristic: "heurístico", random: "aleatório" },
    usual: "o de costume",
    rules: "Regras",
    rulesInFull: "As regras completas (em inglês)",
    log: "O que aconteceu",
    recent: "Agora há pouco",
    hideResults: "Esconder os resultados (para calcular)",
    cover: (name: string) => `É a vez de ${name}: passe a tela.`,
    showHand: (name: string) => `Mostrar a mão de ${name}`,
    hand: (name: string) => `${name}: mão`,
    yourHand: "sua mão",
    saveGame: "Salvar o jogo",
    takeBack: "Desfazer minha última jogada",
    takeBackRefused:
      "Este servidor só deixa cada jogo andar para a frente (uma cerca de revisões): aqui não se desfaz jogada.",
    seatName: (seat: string) => seat.charAt(0).toUpperCase() + seat.slice(1),
    you: (name: string) => `${name} (você)`,
    botName: (name: string) => `${name} (bot)`,
    newGameLine: (title: string, seats: number, seed: string) =>
      `${title}: um novo jogo para ${seats} lugares (${seed}).`,
    seedKept: "uma semente que o servidor guarda",
    seedShown: (seed: string) => `semente ${seed}`,
    abandon: "Abandonar o jogo em andamento e começar outro?",
    unreachable: (why: string) => `Não foi possível falar com o servidor: ${why}`,
    refused: (why: string) => `Recusado: ${why}`,
    over: "O jogo terminou.",
    yourMove: (name: string) => `${name}: sua vez.`,
    soFar: (steps: string) => `Até agora: ${steps}.`,
    waiting: (names: string[]) => `Esperando ${listed(names)}.`,
    back: "Voltar",
    yourMoveGroup: "Sua jogada",
    yourTurnTitle: "Sua vez",
    outcome: {
      wins: (who: string[]) => `${listed(who)} ${who.length === 1 ? "vence" : "vencem"}!`,
      draw: "Empate: ninguém vence.",
      seat: "Lugar",
      score: "Pontuação",
      from: "De onde vem",
      winner: "★ vencedor",
      lowerIsBetter: (unit: string) => `${unit}: menos é melhor`,
      higherIsBetter: (unit: string) => `${unit}: mais é melhor`,
      playAgain: "Jogar de novo",
      playAgainHelp: "o mesmo jogo, lugares e opções, com cartas novas",
    },
    friends: {
      host: "Jogar com amigos",
      title: "Jogar com amigos",
      intro:
        "O servidor guarda esta mesa. Dê a cada pessoa o seu próprio link: com ele, ela joga o seu lugar no seu próprio aparelho. O link dos espectadores mostra só o que é público.",
      spectators: "Espectadores",
      linkOf: (who: string) => `Link: ${who}`,
      copy: "Copiar",
      copied: "Copiado",
      open: "Abrir",
      tableTitle: (title: string) => `${title}: uma mesa com amigos`,
      tableLine: (title: string, seats: number, seat: string | null) =>
        `${title}: uma mesa para ${seats} lugares; ${seat ? `você joga no ${seat}` : "você assiste"}.`,
      rejoining: (why: string) => `Conexão perdida (${why}): entrando de novo…`,
    },
    replay: {
      title: "Jogo salvo",
      watchAs: "Assistir como",
      spectator: "espectador",
      everyCard: "todas as cartas (fim de jogo)",
      first: "Início",
      back: "Voltar",
      forward: "Avançar",
      last: "Fim",
      step: "Passo",
      deal: "as cartas distribuídas",
      moved: (name: string) => `${name} jogou`,
      at: (step: number, last: number, what: string) => `Passo ${step} de ${last}: ${what}.`,
      over: "O jogo terminou.",
      leave: "Voltar ao jogo",
      close: "Fechar o jogo salvo",
      cannot: (why: string) => `Não foi possível abrir este jogo: ${why}`,
      notAFile: "este arquivo não é um jogo salvo",
    },
  },

  notation: {
    seat: (n: string) => `lugar ${n}`,
    team: (letter: string) => `equipe ${letter}`,
    row: (n: string) => `fileira ${n}`,
    side: (n: string) => `lado ${n}`,
    cell: (row: string, column: string) => `L${row}C${column}`,
    ordinal: (rank: number) => `${rank}º`,
    zeroCard: "a carta zero",
    previousCorrect: "a anterior está certa",
    previousWrong: "a anterior está errada",
    bombs: (n: number) => `[${n}b]`,
  },

  count: {
    cards: counted("carta", "cartas"),
    bullheads: counted("cabeça de boi", "cabeças de boi"),
    bombs: counted("bomba", "bombas"),
    points: counted("ponto", "pontos"),
    sequences: counted("sequência", "sequências"),
    hands: counted("mão", "mãos"),
  },

  options: {
    names: {
      too_low_rule: "carta menor que todas as fileiras",
      end: "fim do jogo",
      threshold: "cabeças de boi que encerram o jogo",
      hands: "mãos a jogar",
      tactical_deck: "baralho tático",
      zero_card: "carta zero",
      teams: "equipes",
      sequence_overlap: "uma sequência nova pode dividir",
      length: "duração",
      discard_scoring: "o descarte vale",
      language: "perguntas em",
      rounds: "rodadas",
      starting_seat: "quem começa",
    },
    values: {
      CHOOSE_ROW: "quem jogou escolhe a fileira",
      TAKE_CHEAPEST_ROW: "leva a fileira mais barata",
      PENALTY_THRESHOLD: "num total de cabeças de boi",
      FIXED_HANDS: "depois de um número de mãos",
      ONE_CELL: "uma casa (clássico)",
      ANY: "quaisquer casas",
      SHORT: "curta",
      LONG: "longa",
      PER_CARD: "1 ponto por carta",
      PER_ROW: "1 ponto por fileira abandonada",
      PT_BR: "português (Brasil)",
      EN: "inglês",
    },
  },

  sixNimmt: {
    unit: "cabeças de boi",
    prompts: {
      card: "Escolha a carta que você joga nesta rodada.",
      row: "Sua carta é menor que todas as fileiras: escolha a fileira que você leva.",
    },
    play: (card: string) => `jogar ${card}`,
    take: (row: string) => `levar a ${row}`,
    table: "Mesa de 6 nimmt!: quatro fileiras e os lugares",
    rowTarget: (row: string, cards: string, heads: string) => `levar a ${row} (${cards}, ${heads})`,
    sixth: "6ª",
    takes: "leva",
    handTurn: (hand: number, turn: number) => `Mão ${hand}, rodada ${turn}`,
    handOver: (hand: number) => `A mão ${hand} acabou`,
    revealedCard: (card: string) => `revelou ${card}`,
    ownSelection: (card: string) => `✓ escolheu ${card}`,
    selected: "✓ escolheu",
    choosing: "… escolhendo",
    selectedMark: "escolhida",
    stats: (total: number, taken: number, hand: number) =>
      `${total} ✱ no total · ${taken} levadas · ${hand} na mão`,
    seatLabel: (name: string, heads: string, hand: string, what: string) =>
      `${name}: ${heads}, ${hand} na mão${what ? `, ${what}` : ""}`,
    noCards: "nenhuma carta na mão",
    revealing: "Reveladas juntas, colocadas da menor para a maior",
    selectedCard: (who: string, card: string) => `${who} escolheu ${card}.`,
    selectedACard: (who: string) => `${who} escolheu uma carta.`,
    revealed: (cards: string[]) => `Reveladas: ${cards.join(", ")}.`,
    placed: (who: string, card: string, row: string) => `O ${card} de ${who} vai para a ${row}.`,
    tookRow: (who: string, row: string, cards: string, heads: string) =>
      `${who} leva a ${row}: ${cards} (${heads}).`,
    tooLow: (who: string, card: string) =>
      `O ${card} de ${who} é menor que todas as fileiras: escolhe uma fileira para levar.`,
    handEnded: (hand: number, totals: string[]) => `Fim da mão ${hand}: ${totals.join(", ")}.`,
    handDealt: (hand: number) => `A mão ${hand} é distribuída.`,
    endThreshold: (who: string[], threshold: number) =>
      `${listed(who)} chegou a ${threshold} cabeças de boi, e o jogo acabou com essa mão; vence quem tem menos.`,
    endHands: (hands: number) =>
      `${hands === 1 ? "A única mão foi jogada" : `Todas as ${hands} mãos foram jogadas`}; vence quem tem menos cabeças de boi.`,
    perHand: (hand: number, heads: number) => `mão ${hand}: ${heads}`,
  },

  sequenceNumbers: {
    unit: "sequências",
    prompts: {
      card: "Escolha uma carta para jogar.",
      cell: "Escolha a casa da sua ficha.",
      removal: "Escolha a ficha que sai.",
      exchange: "Trocar esta carta morta por uma nova?",
      discard: "Nenhuma carta sua pode ser jogada: descarte uma.",
      five: "Sua ficha completa duas quinas: escolha a que ela tranca.",
    },
    aCard: "uma carta",
    card: (card: string) => `carta ${card}`,
    exchange: "trocar esta carta morta",
    discard: "descartá-la (nenhuma carta jogável)",
    place: (cell: string) => `pôr uma ficha em ${cell}`,
    remove: (cell: string) => `tirar a ficha de ${cell}`,
    lock: (cells: string) => `trancar ${cells}`,
    freeCorner: (cell: string) => `o canto livre ${cell}`,
    numberAt: (n: number, cell: string) => `${n} em ${cell}`,
    anyCell: "qualquer casa",
    removeWord: "tirar",
    chipOf: (team: string) => `ficha da ${team}`,
    inSequence: "numa sequência",
    board: "Tabuleiro de Sequence Numbers e os lugares",
    deck: (n: number) => `Baralho: ${counted("carta", "cartas")(n)}`,
    toWin: (n: number) => `Sequências para vencer: ${n}`,
    playing: "Jogando",
    seatLabel: (name: string, team: string, sequences: string, cards: string, toAct: boolean) =>
      `${name}, ${team} com ${sequences}, ${cards}${toAct ? ", na vez" : ""}`,
    seatStats: (sequences: number, cards: number, last: string) =>
      `${sequences} seq · ${cards} cartas · última: ${last}`,
    chipPlaced: (who: string, card: string, team: string, where: string) =>
      `${who} joga ${card}: uma ficha da ${team} em ${where}.`,
    chipRemoved: (who: string, team: string, cell: string) =>
      `${who} joga MENOS: a ficha da ${team} sai de ${cell}.`,
    exchanged: (who: string, card: string) => `${who} troca a carta morta ${card}.`,
    drew: (who: string, card: string) => `${who} compra ${card}.`,
    discarded: (who: string, card: string) => `${who} não tem carta jogável e descarta ${card}.`,
    completed: (team: string, cells: string) => `A ${team} completa uma sequência: ${cells}!`,
    reshuffled: (n: number) =>
      `Os descartes são embaralhados num baralho novo de ${counted("carta", "cartas")(n)}.`,
    teamWon: (team: string, seats: string[]) => `A ${team} (${listed(seats)}) vence.`,
    turnLimit: "O limite de turnos chegou: empate.",
    endSequences: (team: string, n: number) =>
      `A ${team} completou ${counted("sequência", "sequências")(n)} primeiro e vence.`,
    endTurnLimit: (turns: number) => `${turns} turnos passaram sem vencedor: o jogo empata.`,
    teamSequences: (team: string, sequences: string[]) =>
      sequences.length ? `${team}: ${sequences.join("; ")}` : `${team}: nenhuma sequência`,
  },

  upOrDown: {
    unit: "pontos",
    prompts: {
      card: "Escolha a carta que você joga no círculo.",
      take: "Escolha a vizinha que você pega: a próxima menor ou a próxima maior.",
      place: "Escolha onde a carta pega entra na sua área.",
      draw: "Escolha a pilha de onde você compra.",
    },
    colours: {
      YELLOW: "amarelo",
      BLUE: "azul",
      RED: "vermelho",
      GREEN: "verde",
      PURPLE: "roxo",
      ORANGE: "laranja",
    },
    cardAria: (card: number, colour: string) => `carta ${card}, ${colour}`,
    play: (card: string) => `jogar ${card}`,
    takeNeighbour: (card: string, lower: boolean) =>
      `pegar ${card} (a próxima ${lower ? "menor" : "maior"})`,
    placement: {
      EXTEND: (row: string) => `continuar a ${row}`,
      NEW_ROW: (row: string) => `começar a ${row}`,
      ABANDON: (row: string) => `abandonar a ${row} e recomeçá-la`,
    },
    draw: {
      FACE_UP: "comprar a carta aberta",
      FACE_DOWN: "comprar da pilha fechada",
      NONE: "não comprar (as duas pilhas estão vazias)",
    },
    table: "Mesa de Up or Down?: o círculo, as pilhas e a área de cada lugar",
    circle: "círculo",
    circleOrder: "menor → maior ↻",
    faceDown: "fechada",
    faceDownShort: "fechada",
    faceUp: (n: number) => `aberta (${n})`,
    faceUpShort: (n: number) => `aberta (${n})`,
    faceDownPile: (n: number) => `pilha fechada, ${counted("carta", "cartas")(n)}`,
    faceUpEmpty: "pilha aberta, vazia",
    toAct: "◀ na vez",
    seatLabel: (name: string, points: string, hand: number, discard: number) =>
      `${name}: ${points}, ${hand} cartas na mão, ${discard} descartadas`,
    seatStats: (points: number, hand: number, discard: number, abandoned: number) =>
      `${points} pontos · ${hand} na mão · descarte ${discard} · abandonadas ${abandoned}`,
    seatStatsShort: (points: number, hand: number, discard: number) =>
      `${points} pts · ${hand} na mão · descarte ${discard}`,
    rowLabel: (row: string, cards: string) => `${row}: ${cards}`,
    empty: "vazia",
    noRows: "nenhuma fileira ainda",
    up: "↑ sobe",
    down: "↓ desce",
    abandonButton: "✕ abandonar",
    noCards: "nenhuma carta na mão",
    turnPlayed: (who: string, card: number, taken: number, where: string, drew: string) =>
      `${who} joga ${card}, pega ${taken}: ${where}${drew}.`,
    discardedCards: (n: number) => ` (${counted("carta descartada", "cartas descartadas")(n)})`,
    drewFaceUp: (card: number) => `, compra ${card} aberta`,
    drewFaceDown: ", compra uma fechada",
    drew: (who: string, card: number) => `${who} compra ${card}.`,
    finalScores: (scores: string[]) => `Pontuação final: ${scores.join(", ")}.`,
    end: "As duas pilhas acabaram e todas as mãos foram jogadas; vence quem tem mais pontos.",
    rowScore: (length: number, colour: number, points: number) =>
      `${length} × ${colour} = ${points}`,
    discardScore: (points: number) => `descarte ${points}`,
    noRowsScore: "nenhuma fileira",
  },

  foraDeOrdem: {
    unit: "bombas",
    prompts: {
      card: "Escolha a carta que você joga.",
      side: "Escolha o item em que você a joga.",
    },
    colours: {
      YELLOW: "amarelo",
      PURPLE: "roxo",
      PINK: "rosa",
      BLUE: "azul",
      GREEN: "verde",
      ORANGE: "laranja",
    },
    aCard: "uma carta",
    card: (card: string) => `carta ${card}`,
    on: (where: string) => `em ${where}`,
    playOn: (where: string) => `jogar em ${where}`,
    sideItem: (side: string, item: string) => `${side} (“${item}”)`,
    cardAria: (card: string, owner: string, colour: string) =>
      `${card}, carta ${colour} de ${owner}`,
    prev: "ant.",
    board: "Tabuleiro de Fora de Ordem: a pergunta, os cinco lados e as pilhas",
    round: (round: number, rounds: number) => `Rodada ${round} de ${rounds}`,
    noCards: "nenhuma carta",
    noCardsInHand: "nenhuma carta na mão",
    playing: "Jogando",
    sideLabel: (side: string, cards: string, top: string) =>
      `${side}, ${cards}${top ? `, no topo ${top}` : ""}`,
    seatLabel: (name: string, colour: string, bombs: number, hand: number, deck: number) =>
      `${name} (${colour}): ${bombs} bombas, ${hand} na mão, ${deck} no baralho`,
    seatStats: (bombs: number, hand: number, deck: number) =>
      `${bombs} bombas · ${hand} na mão · ${deck} no baralho`,
    seatStatsShort: (bombs: number, hand: number, deck: number) =>
      `${bombs} ✹ · ${hand} mão · ${deck} baralho`,
    answerTitle: (round: number) => `Rodada ${round}: a resposta`,
    answerLabel: (round: number) => `a resposta da rodada ${round}`,
    takes: (item: string, who: string, cards: string, bombs: string) =>
      `“${item}”: ${who} leva ${cards}, ${bombs}`,
    allRight: (item: string) => `“${item}”: todas as cartas estavam certas`,
    played: (who: string, card: string, where: string) => `${who} joga ${card} em ${where}.`,
    answer: (ranked: string[]) => `A resposta: ${ranked.join("; ")}.`,
    resolvedTaken: (where: string, who: string, cards: string, bombs: string) =>
      `${where}: ${who} leva ${cards} com ${bombs}.`,
    resolvedRight: (where: string) => `${where}: todas as cartas estavam certas.`,
    refilled: (n: number) => `Cada lugar compra ${counted("carta", "cartas")(n)}.`,
    drew: (who: string, cards: string) => `${who} compra ${cards}.`,
    roundStarted: (round: number, category: string, who: string) =>
      `Rodada ${round}: ${category}; ${who} começa.`,
    gameEnded: (bombs: string[]) => `Fim de jogo: ${bombs.join(", ")}.`,
    end: (rounds: number) =>
      `${rounds === 1 ? "A única rodada foi jogada" : `Todas as ${rounds} rodadas foram jogadas`}; vence quem tem menos bombas.`,
    perRound: (round: number, bombs: number) => `rodada ${round}: ${bombs}`,
    noBombs: "nenhuma bomba",
  },
};
