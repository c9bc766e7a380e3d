// The live preview: the draft as the form holds it, unsaved, rendered by the service's own page
// renderer (POST /page-preview) once typing pauses, in a sandboxed frame. The frame runs no
// script and gets an opaque origin (sandbox without allow-scripts or allow-same-origin); the
// dashboard's Content-Security-Policy, which the srcdoc document inherits, allows exactly the
// themes' stylesheets.
import { usePagePreview } from '../../api/pages.ts';
import type { BioPagePreviewRequest } from '../../api/types.ts';
import { useDebouncedValue } from '../../lib/hooks.ts';

export function PagePreview({ workspaceId, draft }: { workspaceId: string; draft: BioPagePreviewRequest }) {
  const typed = JSON.stringify(draft);
  const settled = useDebouncedValue(typed, 300);
  const preview = usePagePreview(workspaceId, settled);
  const updating = typed !== settled || preview.isFetching;
  return (
    <section className="page-preview" aria-labelledby="page-preview-heading">
      <div className="page-preview-header">
        <h2 id="page-preview-heading">Preview</h2>
        <span className="muted page-preview-note">
          {updating
            ? 'Updating…'
            : preview.isError && preview.data !== undefined
              ? `Not updated: ${preview.error.message}`
              : 'As visitors will see it, before saving'}
        </span>
      </div>
      {preview.data !== undefined ? (
        <iframe title="Page preview" className="preview-frame" sandbox="" srcDoc={preview.data} />
      ) : preview.isError ? (
        <div className="preview-frame preview-frame-empty">
          <p className="notice notice-error">The preview could not be made: {preview.error.message}</p>
        </div>
      ) : (
        <div className="preview-frame preview-frame-empty">
          <p className="muted">Preparing the preview…</p>
        </div>
      )}
    </section>
  );
}
