/** Excel and its kin read UTF-8 (Vietnamese names) correctly only after this mark. */
export const CSV_BOM = '\uFEFF';

/**
 * Cells a spreadsheet would run as a formula (=, +, -, @, and the tab and carriage return that can hide
 * one): a visitor's "name" must never execute on the merchant's machine, so such a cell starts with '.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** One record: every field quoted, CRLF at the end (RFC 4180). */
export function csvRow(values: readonly (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
