/** Whether anything (file or folder) is at `path`; false for any error, as for no entry. */
import { access } from "node:fs/promises";

export function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
