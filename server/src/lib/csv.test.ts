import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, CsvSyntaxError, parseCsv } from './csv';

/** What a reader gets back from an exported cell: the neutralising quote taken off again. */
const unneutralise = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

describe('CSV', () => {
  it('neutralises cells a spreadsheet would run as a formula', () => {
    expect(csvCell(`=cmd|' /C calc'!A0`)).toBe(`'=cmd|' /C calc'!A0`);
    expect(csvCell('+1+1')).toBe(`'+1+1`);
    expect(csvCell('-2+3')).toBe(`'-2+3`);
    expect(csvCell('@SUM(A1)')).toBe(`'@SUM(A1)`);
    expect(csvCell('\t=1')).toBe(`'\t=1`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('jane@example.com')).toBe('jane@example.com');
  });

  it('quotes commas, quotes and line breaks; dates as ISO; null as empty', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', null, new Date('2026-01-02T03:04:05.000Z'), 3])).toBe(
      '"a,b","say ""hi""","two\nlines",,2026-01-02T03:04:05.000Z,3\r\n',
    );
  });

  it('round-trips hostile cells (formulas, quotes, CR/LF, unicode) through export and parse', () => {
    const rows = [
      ["=cmd|' /C calc'!A0", '+SUM(1)', '-1', '@x', '\tTab', '\rCR'],
      ['"quoted"', 'comma, inside', 'line\nbreak', 'crlf\r\nbreak', 'ünïcødé 🙂 日本語', ''],
    ];
    const text = rows.map(csvLine).join('');
    const parsed = parseCsv(text);
    expect(parsed.map((r) => r.cells.map(unneutralise))).toEqual(rows);
    // No exported cell starts with a formula character.
    for (const r of parsed) for (const cell of r.cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('parses LF and CRLF files with a byte-order mark, skips blank lines, and reports lines', () => {
    expect(parseCsv('\uFEFFidentifier,workspace\r\na@x.io,Prod\n\n"b\nc",\n')).toEqual([
      { line: 1, cells: ['identifier', 'workspace'] },
      { line: 2, cells: ['a@x.io', 'Prod'] },
      { line: 4, cells: ['b\nc', ''] },
    ]);
    expect(parseCsv('only')).toEqual([{ line: 1, cells: ['only'] }]);
  });

  it('refuses malformed quoting with the line', () => {
    expect(() => parseCsv('a\n"open')).toThrow(CsvSyntaxError);
    expect(() => parseCsv('a\nx"y')).toThrow(/quote inside an unquoted cell/);
    try {
      parseCsv('a\nb\n"c"d');
    } catch (error) {
      expect((error as CsvSyntaxError).line).toBe(3);
    }
  });
});
