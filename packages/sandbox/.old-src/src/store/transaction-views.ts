// A transaction hands its function a `tx`. A caller that keeps it and calls it after the transaction ended
// (a forgotten await, a callback that fires later) must get an error, never a write outside any
// transaction (or inside the next one).

/** What a transaction's `tx` checks on every call: open until the transaction ends. */
export interface TransactionState {
  open: boolean;
}

/**
 * Views of `impl`, one per transaction: each method refuses once the view's transaction has ended. The
 * methods live on a prototype built once, so a view costs one small object and a call one property read
 * (an AsyncLocalStorage lookup per call cost a new transfer about 2% of its time).
 */
export function transactionViews<T extends object>(impl: T): new (state: TransactionState) => T {
  class View {
    readonly state: TransactionState;
    constructor(state: TransactionState) {
      this.state = state;
    }
  }
  for (const [name, method] of Object.entries(impl)) {
    Object.defineProperty(View.prototype, name, {
      value(this: View, ...args: unknown[]) {
        return this.state.open
          ? (method as (...a: unknown[]) => Promise<unknown>)(...args)
          : Promise.reject(new Error(`tx.${name}() was called after its transaction ended`));
      },
    });
  }
  return View as unknown as new (state: TransactionState) => T;
}
