// A sign that it is a person's turn while the page is in a background tab: the tab's title says
// so until the page is looked at again, and, when the person asked for it, a short sound plays.
// The choice of sound is kept for their next visit.
import { t } from "./i18n.ts";

const STORED = "ordo-playground-sound";
const TONE_HZ = 660; // a soft E, short enough not to startle
const TONE_SECONDS = 0.18;

let title = "";
let audio: AudioContext | null = null;

/** Whether the person wants a sound on their turn. */
export function soundWanted(): boolean {
  try {
    return localStorage.getItem(STORED) === "on";
  } catch {
    return false;
  }
}

/** Keeps the person's choice of a sound on their turn. */
export function wantSound(on: boolean): void {
  try {
    localStorage.setItem(STORED, on ? "on" : "off");
  } catch {
    // Storage disabled: the choice lasts as long as the page.
  }
  // A browser lets a page play sound once a person has acted on it: this click counts.
  if (on) audio ??= new AudioContext();
}

/** Tells a person in another tab that it is their turn: the title, and the sound if wanted. */
export function yourTurn(): void {
  if (document.visibilityState !== "hidden") return;
  if (!title) title = document.title;
  document.title = `● ${t().page.yourTurnTitle} · ${title}`;
  document.body.dataset.notified = String(Number(document.body.dataset.notified ?? "0") + 1);
  if (soundWanted()) beep();
}

/** The page is looked at again: its title is its own. */
export function seen(): void {
  if (document.visibilityState === "hidden" || !title) return;
  document.title = title;
  title = "";
}

/** The page's own title, in its language, unless a turn is being signalled. */
export function setTitle(text: string): void {
  if (title) title = text;
  else document.title = text;
}

function beep(): void {
  audio ??= new AudioContext();
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.frequency.value = TONE_HZ;
  gain.gain.setValueAtTime(0.2, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + TONE_SECONDS);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start();
  oscillator.stop(audio.currentTime + TONE_SECONDS);
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds ?? "0") + 1);
}
