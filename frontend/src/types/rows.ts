// Postgres records no nullability for view columns, so the generated view rows make every
// column nullable. Known narrows a generated row to the columns a feature reads and marks
// the ones its query guarantees as non-null, instead of hand-writing a copy of the row.
export type Known<Row, Cols extends keyof Row, NonNullCols extends Cols = Cols> = {
  [C in Cols]: C extends NonNullCols ? NonNullable<Row[C]> : Row[C];
};
