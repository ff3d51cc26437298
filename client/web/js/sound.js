// Sound effects synthesized with Web Audio: short tones, no audio files.
// The audio context starts on the first sound after a user gesture, as
// browsers require; with sound off nothing is created at all.

const TONES = {
  move: [[520, 0.05]],
  draw: [[360, 0.04]],
  error: [[200, 0.12]],
  win: [[523, 0.12], [659, 0.12], [784, 0.2]],
};

let context = null;

export function play(name, settings) {
  if (!settings.sound || !TONES[name]) return;
  const AudioContext = window.AudioContext ?? window.webkitAudioContext;
  if (!AudioContext) return;
  context ??= new AudioContext();
  let at = context.currentTime;
  for (const [frequency, seconds] of TONES[name]) {
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.08, at);
    gain.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start(at);
    oscillator.stop(at + seconds);
    at += seconds;
  }
}
