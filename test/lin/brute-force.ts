/**
 * A brute-force linearizability checker, for testing src/checkers/linearizable/linearizable.ts: it is the
 * definition, with no cache, no list, no pruning. It tries every order of the ops that respects
 * real time (an op that returned strictly before another was called goes first) and succeeds
 * if one order is legal for the model, where an op with `ret = Infinity` may also be left out
 * (it never took effect). Exponential: only for small histories.
 */
import type { LinOp, Model } from "../../src/checkers/linearizable/models/model.js";

export function bruteForceLinearizable<S, I, O>(model: Model<S, I, O>, ops: readonly LinOp<I, O>[]): boolean {
  const placed = new Array<boolean>(ops.length).fill(false);
  const definite = ops.filter((o) => Number.isFinite(o.ret)).length;

  const search = (state: S, placedDefinite: number): boolean => {
    if (placedDefinite === definite) return true;
    for (let x = 0; x < ops.length; x++) {
      if (placed[x]) continue;
      const op = ops[x] as LinOp<I, O>;
      // x may go next only if no unplaced op that must take effect returned before x was called.
      const blocked = ops.some((y, j) => !placed[j] && j !== x && Number.isFinite(y.ret) && y.ret < op.call);
      if (blocked) continue;
      const next = model.step(state, op.input, op.output);
      if (next === undefined) continue;
      placed[x] = true;
      const found = search(next, placedDefinite + (Number.isFinite(op.ret) ? 1 : 0));
      placed[x] = false;
      if (found) return true;
    }
    return false;
  };
  return search(model.init(), 0);
}
