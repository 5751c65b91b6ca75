/**
 * The child's ClientRecorder: stamps each event with the monotonic clock at the moment the
 * workload records it (an invoke before its request is sent, a completion after its reply
 * arrived) and appends it to the child's own events file with one synchronous write, so the
 * file holds every event up to the last one even if lockcheck or this process is killed.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { ClientRecorder } from "../../workload/client.js";
import { type EventLine, tokenToWire } from "./protocol.js";

export interface FileRecorder extends ClientRecorder {
  close(): void;
}

export function createFileRecorder(
  path: string,
  t0: bigint,
  onEvent: (kind: EventLine["type"]) => void,
): FileRecorder {
  const fd = openSync(path, "a");
  let nextCall = 0;
  const stamp = (): number => Number(process.hrtime.bigint() - t0);
  const append = (line: EventLine): void => {
    writeSync(fd, `${JSON.stringify(line)}\n`);
    onEvent(line.type);
  };
  return {
    invoke(fields) {
      const call = nextCall++;
      append({ call, time: stamp(), type: "invoke", fields: tokenToWire(fields) });
      return call;
    },
    complete(call, type, fields = {}) {
      append({ call, time: stamp(), type, fields: tokenToWire(fields) });
    },
    close: () => closeSync(fd),
  };
}
