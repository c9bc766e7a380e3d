// The signed-in frame's keys: `c` makes a link from any screen of a workspace (the Links screen's
// "New link" dialog), `?` lists every key. The Links screen adds `/` for its search.
import { useId, useState } from 'react';
import { useModalDialog } from './modal-dialog.ts';
import { useLocation } from 'wouter';
import { can, useMembership } from '../api/session.ts';
import { useShortcuts } from '../lib/shortcuts.ts';

/** The Links screen's address that opens its "New link" dialog. */
export const NEW_LINK_PARAM = 'new';

const KEYS: Array<[key: string, what: string]> = [
  ['c', 'Make a new link'],
  ['/', 'Search the links (on Links)'],
  ['?', 'Show these keys'],
  ['Esc', 'Close a dialog'],
];

export function KeyboardHelp() {
  const [location, navigate] = useLocation();
  const ws = /^\/w\/([^/]+)/.exec(location)?.[1];
  const workspaceId = ws ? decodeURIComponent(ws) : '';
  const member = useMembership(workspaceId);
  const [open, setOpen] = useState(false);
  useShortcuts({
    c:
      member && can.editLinks(member.role)
        ? () => navigate(`/w/${encodeURIComponent(workspaceId)}/links?${NEW_LINK_PARAM}=1`)
        : undefined,
    '?': () => setOpen(true),
  });
  return open ? (
    <KeysDialog canCreate={Boolean(member && can.editLinks(member.role))} onClose={() => setOpen(false)} />
  ) : null;
}

function KeysDialog({ canCreate, onClose }: { canCreate: boolean; onClose: () => void }) {
  const dialog = useModalDialog(onClose);
  const titleId = useId();
  return (
    <dialog {...dialog} className="dialog" aria-labelledby={titleId}>
      <h2 id={titleId}>Keyboard shortcuts</h2>
      <dl className="keys">
        {KEYS.filter(([key]) => canCreate || key !== 'c').map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
