/**
 * Progress of a download or import the user can watch and cancel: bytes,
 * speed over the last seconds, and time left.
 */
export class Transfer {
  #done = $state(0);
  #total = $state(0);
  #file = $state('');
  /** Recent (time, bytes) samples; replaced on each tick so speed and ETA re-render. */
  #samples = $state.raw<{ t: number; bytes: number }[]>([]);
  readonly controller = new AbortController();

  constructor(
    readonly label: string,
    readonly kind: 'download' | 'import' | 'verify',
    /** The catalogue entry it is for, so its row can show it. */
    readonly entryId?: string,
  ) {}

  get done() { return this.#done; }
  get total() { return this.#total; }
  get file() { return this.#file; }

  /** Bytes per second over the last 3 s (0 until there are two samples). */
  get speed(): number {
    const s = this.#samples;
    if (s.length < 2) return 0;
    const a = s[0]!;
    const b = s[s.length - 1]!;
    return b.t > a.t ? ((b.bytes - a.bytes) / (b.t - a.t)) * 1000 : 0;
  }

  /** Seconds left at the current speed, or null when unknown. */
  get etaSeconds(): number | null {
    const v = this.speed;
    return v > 0 && this.#total > 0 ? Math.max(0, (this.#total - this.#done) / v) : null;
  }

  start(total: number): void {
    this.#total = total;
    this.#tick(0);
  }

  setFile(name: string): void {
    this.#file = name;
  }

  advance(bytes: number): void {
    this.#tick(this.#done + bytes);
  }

  #tick(done: number): void {
    this.#done = done;
    const t = performance.now();
    const samples = [...this.#samples, { t, bytes: done }];
    while (samples.length > 2 && t - samples[0]!.t > 3000) samples.shift();
    this.#samples = samples;
  }
}
