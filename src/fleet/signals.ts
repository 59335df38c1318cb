/**
 * What `workspace-access-fleet` does on SIGINT (Ctrl-C) and SIGTERM (a CI job cancelled, `timeout`, Kubernetes), in
 * steps, each signal taking the run one step further:
 * 1. the first Ctrl-C: no new stack starts; the running ones go on (in a terminal their pulumi got the Ctrl-C too);
 * 2. a second Ctrl-C, or a SIGTERM at any point: the running stacks are cancelled as well (each pulumi gets SIGINT);
 *    the process still waits for every pulumi to end, then prints its report;
 * 3. a third Ctrl-C: the process exits at once, without waiting.
 * A SIGTERM never exits at once: its sender waits for the process (and sends SIGKILL after its own grace period).
 */

/** Options of {@link fleetSignals}. */
export interface FleetSignalOptions {
  /** The command's name, the messages' prefix. */
  name: string;
  /** Writes a message (to stderr). */
  write(text: string): void;
  /** The stacks running now: started and not ended. */
  running(): readonly string[];
  /** Ends the process (the third Ctrl-C). */
  exit(code: number): void;
}

/** Where to look after a pulumi was stopped or left running: the stack may hold pending operations, or stay locked. */
const CHECK = "run pulumi refresh on it to find operations left pending (and pulumi cancel if it stays locked)";

/** The exit status of the third Ctrl-C: 128 + SIGINT, as a shell reports a process it interrupted. */
export const INTERRUPTED_EXIT = 130;

/** The `stop` and `cancel` signals of `runFleet`, and `handle`, to call on each SIGINT or SIGTERM. */
export interface FleetSignals {
  stop: AbortSignal;
  cancel: AbortSignal;
  handle(signal: "SIGINT" | "SIGTERM"): void;
}

/** The {@link FleetSignals} of one run; see the top of this file. */
export function fleetSignals(options: FleetSignalOptions): FleetSignals {
  const stop = new AbortController();
  const cancel = new AbortController();
  const { name, write } = options;
  const list = () => {
    const running = options.running();
    return running.length === 0 ? "no stack is running" : `running: ${running.join(", ")}`;
  };
  const handle = (signal: "SIGINT" | "SIGTERM"): void => {
    if (signal === "SIGINT" && !stop.signal.aborted) {
      stop.abort();
      write(
        `\n${name}: interrupted: no new stack starts; waiting for the running ones (${list()}). In a terminal their pulumi ` +
          "got this Ctrl-C too and is cancelling: it starts no new resource operation and waits for those in flight. " +
          "Ctrl-C again cancels them; a third time exits without waiting.\n",
      );
    } else if (!cancel.signal.aborted) {
      stop.abort();
      cancel.abort();
      const why = signal === "SIGTERM" ? "terminated (SIGTERM): no new stack starts; cancelling" : "cancelling";
      write(
        `\n${name}: ${why} the running stacks (${list()}): each pulumi gets SIGINT, and waits for its resource operations ` +
          "in flight. A pulumi that got two (in a terminal, each Ctrl-C reaches it too) stops at once instead: for each " +
          `such stack, ${CHECK}. Waiting for every pulumi to end; Ctrl-C again exits without waiting.\n`,
      );
    } else if (signal === "SIGTERM") {
      write(`\n${name}: already cancelling; waiting for every pulumi to end (${list()})\n`);
    } else {
      const running = options.running();
      write(
        running.length === 0
          ? `\n${name}: exiting without waiting\n`
          : `\n${name}: exiting without waiting for ${running.join(", ")}: for each, ${CHECK}\n`,
      );
      options.exit(INTERRUPTED_EXIT);
    }
  };
  return { stop: stop.signal, cancel: cancel.signal, handle };
}
