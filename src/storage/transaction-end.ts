import type { Statement } from './statement-template.ts';

/**
 * The closing statements of a transaction: what a mutation writes last (its ledger event, its
 * stored answer), sent with the COMMIT. On PostgreSQL they travel in the COMMIT's own round trip
 * (pg-transaction.ts), so a campaign's ledger counter, taken by the event, is held only while
 * PostgreSQL runs them and commits, never across a trip back to Node (docs/performance.md,
 * "The tail of a mutation"). On PGlite, in process, they simply run last.
 */
export interface TransactionEnd {
  /**
   * Runs `statement` after the transaction's work, in the order given, just before COMMIT. Its
   * rows can be read once the transaction has committed.
   */
  sendWithCommit(statement: Statement): ClosingRows;
}

export type Row = Record<string, unknown>;

export interface ClosingRows {
  /** The statement's rows; only after the transaction committed. */
  rows(): Row[];
}

/** The closing statements one transaction collected, and their rows once they ran. */
export class ClosingStatements implements TransactionEnd {
  readonly statements: Statement[] = [];
  private readonly results: Row[][] = [];

  sendWithCommit(statement: Statement): ClosingRows {
    const at = this.statements.push(statement) - 1;
    return {
      rows: () => {
        const rows = this.results[at];
        if (!rows) throw new Error('a closing statement was read before its transaction committed');
        return rows;
      },
    };
  }

  /** Records the rows of each closing statement, in order. */
  ran(rows: Row[][]): void {
    this.results.splice(0, this.results.length, ...rows);
  }
}
