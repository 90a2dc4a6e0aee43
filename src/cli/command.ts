/** Output streams a command writes to; tests pass in-memory ones. */
export interface CliIo {
  readonly out: { write(text: string): unknown };
  readonly err: { write(text: string): unknown };
}

export interface CliCommand {
  readonly name: string;
  /** One-line synopsis shown in `neuroeval --help`, e.g. `hash <file…>`. */
  readonly usage: string;
  readonly summary: string;
  /** Full help for `neuroeval <name> --help`. */
  readonly help: string;
  run(args: readonly string[], io: CliIo): Promise<number>;
}
