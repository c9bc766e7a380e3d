// Import links from a CSV file (row by row: what was made, what was refused and why) and export
// every link as CSV.
import { useId, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import type { ApiError } from '../api/errors.ts';
import { linksExportUrl, useImportLinks } from '../api/links.ts';
import { can, useMembership } from '../api/session.ts';
import type { ImportReport } from '../api/types.ts';
import { SubmitButton } from '../components/buttons.tsx';
import { FormAlert } from '../components/feedback.tsx';
import { PageHeader } from '../components/page.tsx';
import { formatCount } from '../lib/format.ts';

const MAX_BYTES = 10 * 1024 * 1024;

export default function ImportExport() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const membership = useMembership(ws)!;
  const fileId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | undefined>();
  const [report, setReport] = useState<ImportReport | null>(null);
  const [runs, setRuns] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  const run = useImportLinks(ws, {
    onMutate: () => setReport(null),
    onSuccess: (answer) => {
      setReport(answer);
      setRuns((n) => n + 1);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!file) {
      setFileError('Choose a CSV file to import.');
      formRef.current?.querySelector<HTMLInputElement>('input[type="file"]')?.focus();
      return;
    }
    if (file.size > MAX_BYTES) {
      setFileError('The file is over 10 MiB: split it and import the parts.');
      return;
    }
    setFileError(undefined);
    run.mutate(file);
  };

  const exportName = `${membership.name.replace(/[^\w-]+/g, '-').toLowerCase() || 'links'}-links.csv`;

  return (
    <>
      <PageHeader title="Import and export" />

      <div className="two-columns">
        <section className="panel" aria-labelledby="import-heading">
          <h2 id="import-heading">Import links</h2>
          {can.editLinks(membership.role) ? (
            <>
              <p>
                A CSV file with a header row and one link per row: <code>url</code> (required), <code>slug</code>,{' '}
                <code>title</code>, <code>tags</code> (names separated by <code>|</code>) and <code>expiresAt</code>.
                Exports of Bitly, Shlink and Kutt work as they are. At most 20,000 rows and 10 MiB; a refused row leaves
                the others standing.
              </p>
              <form ref={formRef} onSubmit={submit} noValidate className="stack">
                <FormAlert message={run.isError ? (run.error as ApiError).message : null} />
                <div className="field">
                  <label htmlFor={fileId}>CSV file</label>
                  <input
                    id={fileId}
                    type="file"
                    accept=".csv,text/csv"
                    aria-invalid={fileError ? true : undefined}
                    aria-describedby={fileError ? `${fileId}-error` : undefined}
                    onChange={(e) => {
                      setFile(e.target.files?.[0] ?? null);
                      setFileError(undefined);
                    }}
                  />
                  {fileError ? (
                    <p id={`${fileId}-error`} className="field-error">
                      {fileError}
                    </p>
                  ) : null}
                </div>
                <div>
                  <SubmitButton pending={run.isPending}>Import</SubmitButton>
                </div>
              </form>
            </>
          ) : (
            <p className="muted">Your role can read links but not make them, so importing is not open to you.</p>
          )}
        </section>

        <section className="panel" aria-labelledby="export-heading">
          <h2 id="export-heading">Export links</h2>
          <p>
            Every link of this workspace as a CSV file, oldest first: short URL, slug, destination, title, tags, status,
            clicks and dates. The file can be imported again.
          </p>
          <a className="button" href={linksExportUrl(ws)} download={exportName}>
            Export links as CSV
          </a>
        </section>
      </div>

      {report ? <Report key={runs} report={report} /> : null}
    </>
  );
}

function Report({ report }: { report: ImportReport }) {
  const [refusedOnly, setRefusedOnly] = useState(report.refused > 0 && report.rows.length > 50);
  const rows = refusedOnly ? report.rows.filter((r) => !r.ok) : report.rows;
  const toggleId = useId();
  return (
    <section className="section" aria-labelledby="report-heading">
      <h2 id="report-heading">Import report</h2>
      <div role="status" className={`notice ${report.refused ? 'notice-warning' : 'notice-success'}`}>
        {formatCount(report.created)} made, {formatCount(report.refused)} refused
      </div>
      {report.refused > 0 ? (
        <div className="check">
          <input
            id={toggleId}
            type="checkbox"
            checked={refusedOnly}
            onChange={(e) => setRefusedOnly(e.target.checked)}
          />
          <label htmlFor={toggleId}>Show refused rows only</label>
        </div>
      ) : null}
      <div className="table-wrap table-wrap-tall" role="region" aria-labelledby="report-caption" tabIndex={0}>
        <table className="table table-compact">
          <caption id="report-caption" className="visually-hidden">
            Import report, row by row
          </caption>
          <thead>
            <tr>
              <th scope="col" className="num">
                Row
              </th>
              <th scope="col">Result</th>
              <th scope="col">Slug</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.row}>
                <td className="num">{r.row}</td>
                <td>
                  <span className={`badge ${r.ok ? 'badge-ok' : 'badge-error'}`}>{r.ok ? 'Made' : 'Refused'}</span>
                </td>
                <td>{r.slug ?? ''}</td>
                <td>{r.ok ? '' : `${r.error ?? 'Refused'}${r.field ? ` (column ${r.field})` : ''}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
