/**
 * CSV as RFC 4180 reads it (comma, CRLF, double quotes), safe to open in a spreadsheet:
 * a cell that a spreadsheet would run as a formula (starting with =, +, -, @, tab or CR) is
 * prefixed with a single quote, so `=HYPERLINK(…)` or `=cmd|' /C calc'!A0` stays text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CsvValue = string | number | boolean | Date | null | undefined;

export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * Parses CSV text into records of cells (a leading byte-order mark is ignored; LF or CRLF
 * line ends; quoted cells may hold commas, quotes and line breaks). Blank lines are skipped.
 * Each record carries the line it started on, for per-row reports.
 */
export function parseCsv(text: string): { line: number; cells: string[] }[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let cellWasQuoted = false;
  let line = 1;
  let recordLine = 1;
  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '' || cellWasQuoted) records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
    cellWasQuoted = false;
  };
  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    if (quoted) {
      if (ch === '"') {
        if (input[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      continue;
    }
    if (ch === '"') {
      if (cell !== '')
        throw new CsvSyntaxError('A quote inside an unquoted cell (quote the whole cell and double the quote)', line);
      quoted = true;
      cellWasQuoted = true;
    } else if (ch === ',') {
      cells.push(cell);
      cell = '';
      cellWasQuoted = false;
    } else if (ch === '\r' || ch === '\n') {
      if (ch === '\r' && input[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      if (cellWasQuoted)
        throw new CsvSyntaxError('Text after a closing quote (double a quote inside a quoted cell)', line);
      cell += ch;
    }
  }
  if (quoted) throw new CsvSyntaxError('A quoted cell is not closed', recordLine);
  if (cell !== '' || cells.length > 0 || cellWasQuoted) endRecord();
  return records;
}
