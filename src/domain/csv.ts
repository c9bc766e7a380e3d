// The one CSV writer of every file the service gives out: the links export, and the files the
// dashboard makes in the browser (the conversions report, a link's clicks by day). Plain
// functions with no I/O, so the browser's code may import this module too (.dependency-cruiser.cjs).
import { stringify } from 'csv-stringify/sync';

export type CsvCell = string | number | null | undefined;

/**
 * A text a spreadsheet would run as a formula (or, after a tab or carriage return, still read as
 * one): OWASP's CSV injection rule. Quotes in front are looked through, so that `'=x` is also
 * written with one more quote and readBackCell gives every text back as it was.
 */
const FORMULA = /^'*[=+\-@\t\r]/;

/** A cell of a file this writer made, as it was before (the import reads the export). */
export function readBackCell(cell: string): string {
  return cell.startsWith("'") && FORMULA.test(cell) ? cell.slice(1) : cell;
}

/**
 * Records as CSV text: comma-separated, `\n` after every record (the last one too), a field quoted
 * when it holds a comma, quote or line break. A would-be formula is written behind a single quote,
 * which spreadsheets show as text, and quoted. Numbers are written as they are; null and
 * undefined as empty fields.
 */
export function csvRecords(records: CsvCell[][]): string {
  return stringify(records, {
    cast: {
      string: (value) => (FORMULA.test(value) ? { value: `'${value}`, quoted: true } : value),
    },
  });
}
