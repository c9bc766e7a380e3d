// The dashboard's CSV files are written by the service's one CSV writer (src/domain/csv.ts), so a
// file made in the browser keeps a would-be spreadsheet formula as text exactly as the export does.
export { csvRecords, type CsvCell } from '../../domain/csv.ts';
