/**
 * A client process stopping itself (`pause-at`, `pause-in-call`): SIGSTOP to its own pid, which
 * returns only once the parent has sent SIGCONT. With `clocks: "stopped"` the client's clocks
 * then lose the time it was stopped, before any other code of the process runs (a reply that
 * arrived meanwhile is read after this): they read on from where they stopped, as a suspended
 * VM's do.
 */
import type { PauseClocks } from "../../schedule/schedule.js";
import type { ClientClock } from "./clock.js";

export function stopSelf(clock: ClientClock, clocks: PauseClocks | undefined): void {
  const stoppedAt = clock.mono();
  process.kill(process.pid, "SIGSTOP");
  if (clocks === "stopped") clock.rewind(stoppedAt);
}
