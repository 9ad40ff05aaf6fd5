// A move is chosen step by step (a card, then a row or cell, ...). Every legal action of the seat
// is a list of steps; at each point only the steps that some legal action still allows are
// offered, so an illegal move cannot be built. Once a person has made a choice, a step with one
// option left is made for them; going back undoes it with the choice that led to it.
export interface Step {
  /** What is pointed at: "card", "row", "cell", "side", "take", "place", "draw", ... */
  kind: string;
  /** Which one, as text (a card value, a row index, ...). */
  value: string;
  /** How the step reads for people, e.g. "take row 2". */
  label: string;
}

export interface Candidate<A> {
  action: A;
  steps: Step[];
}

/** What a drawing asks of the move being built. */
export interface StepQuery {
  readonly steps: readonly Step[];
  isOffered(kind: string, value: string): boolean;
  isChosen(kind: string, value: string): boolean;
}

export class MovePicker<A> implements StepQuery {
  private chosen: Step[] = [];
  /** How many of the chosen steps the person chose, each with the steps filled in after it. */
  private made: number[] = [];

  constructor(
    private readonly candidates: Candidate<A>[],
    private readonly onComplete: (action: A) => void,
    private readonly onChange: () => void,
  ) {}

  get steps(): readonly Step[] {
    return this.chosen;
  }

  get active(): boolean {
    return this.candidates.length > 0;
  }

  private matching(): Candidate<A>[] {
    return this.candidates.filter((c) =>
      this.chosen.every((s, i) => c.steps[i]?.kind === s.kind && c.steps[i]?.value === s.value),
    );
  }

  /** The next steps some legal action still allows, each once, in the order the server listed. */
  offered(): Step[] {
    const seen = new Set<string>();
    const out: Step[] = [];
    for (const c of this.matching()) {
      const next = c.steps[this.chosen.length];
      if (!next) continue;
      const key = `${next.kind}:${next.value}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(next);
      }
    }
    return out;
  }

  isOffered(kind: string, value: string): boolean {
    return this.offered().some((s) => s.kind === kind && s.value === value);
  }

  isChosen(kind: string, value: string): boolean {
    return this.chosen.some((s) => s.kind === kind && s.value === value);
  }

  choose(kind: string, value: string): void {
    const step = this.offered().find((s) => s.kind === kind && s.value === value);
    if (!step) {
      if (this.isChosen(kind, value)) this.back();
      return;
    }
    this.made.push(this.chosen.length);
    this.chosen.push(step);
    for (let only = this.forced(); only; only = this.forced()) this.chosen.push(only);
    const done = this.complete();
    if (done) {
      this.onComplete(done.action);
      return;
    }
    this.onChange();
  }

  /** The action the steps chosen make, once nothing more is offered. */
  private complete(): Candidate<A> | undefined {
    if (this.offered().length) return undefined;
    return this.matching().find((c) => c.steps.length === this.chosen.length);
  }

  /** The one step offered next, when there is one only and the move is not complete yet. */
  private forced(): Step | undefined {
    const offered = this.offered();
    const ends = this.matching().some((c) => c.steps.length === this.chosen.length);
    return offered.length === 1 && !ends ? offered[0] : undefined;
  }

  /** Takes back the last choice the person made, and the steps made for them after it. */
  back(): void {
    this.chosen.length = this.made.pop() ?? 0;
    this.onChange();
  }

  reset(): void {
    this.chosen = [];
    this.made = [];
    this.onChange();
  }
}
