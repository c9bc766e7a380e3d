// Account › Your sessions: the browsers signed in as this person (when, last used, browser and
// system, roughly where; this one marked), each ended on its own or all but this one at once.
// Ending this one signs out here, so the screen goes to sign-in.
import { useLocation } from 'wouter';
import { queryClient } from '../api/query-client.ts';
import { type OwnSession, useEndOtherSessions, useEndSession, useOwnSessions } from '../api/own-sessions.ts';
import { ConfirmedActionButton } from '../components/buttons.tsx';
import { useConfirm } from '../components/confirm.tsx';
import { ACTIONS } from '../components/data-table.tsx';
import { OutcomeNotice, useOutcome } from '../components/outcome-notice.tsx';
import { ConfirmedWriteButton } from '../components/row-buttons.tsx';
import { TableSection } from '../components/table-section.tsx';
import { When } from '../components/when.tsx';
import { formatDateTime } from '../lib/dates.ts';

const browserOf = (s: OwnSession) => [s.browser, s.os].filter(Boolean).join(' on ') || 'Unknown browser';

export function AccountSessions() {
  const list = useOwnSessions();
  const [, navigate] = useLocation();
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();
  const end = useEndSession({
    onSuccess: (_v, s) => {
      if (s.current) {
        queueMicrotask(() => queryClient.removeQueries());
        navigate('/login', { replace: true });
      } else notice.done(`${browserOf(s)} is signed out.`);
    },
    onError: (err) => notice.failed(err.message),
  });
  const endOthers = useEndOtherSessions({
    onSuccess: () => notice.done('Every other session has ended.'),
    onError: (err) => notice.failed(err.message),
  });
  const others = (list.data ?? []).filter((s) => !s.current).length;

  return (
    <>
      <OutcomeNotice outcome={notice.outcome} />
      <TableSection
        id="sessions"
        heading="Your sessions"
        intro={
          <div className="section-intro">
            <p className="muted">
              Every browser signed in as you. Sign out one you do not know, then change your password.
            </p>
            {others > 0 ? (
              <ConfirmedActionButton
                label="Sign out everywhere else"
                name="Sign out everywhere else"
                ask={ask}
                disabled={endOthers.isPending}
                question={{
                  title: 'Sign out everywhere else?',
                  body: `The other ${others === 1 ? 'session ends' : `${others} sessions end`}; this one stays.`,
                  confirmLabel: 'Sign out everywhere else',
                }}
                onConfirmed={() => endOthers.mutate()}
              />
            ) : null}
          </div>
        }
        noun="sessions"
        read={list}
        caption="Your sessions"
        cards
        headers={['Browser', 'Where', 'Signed in', 'Last used', ACTIONS]}
      >
        {(s) => (
          <tr key={s.id}>
            <td data-label="Browser">
              {browserOf(s)}
              {s.current ? <span className="badge badge-ok session-current">This browser</span> : null}
            </td>
            <td data-label="Where">{s.place ?? <span className="muted">Unknown</span>}</td>
            <td className="nowrap" data-label="Signed in">
              {/* Several sign-ins a day are told apart by their time. */}
              <time dateTime={s.createdAt}>{formatDateTime(s.createdAt)}</time>
            </td>
            <td className="nowrap" data-label="Last used">
              <When iso={s.lastSeenAt} relative />
            </td>
            <td className="cell-actions">
              <ConfirmedWriteButton
                label="Sign out"
                name={
                  s.current
                    ? 'Sign out this browser'
                    : `Sign out ${browserOf(s)}, signed in ${formatDateTime(s.createdAt)}`
                }
                ask={ask}
                write={end}
                row={s}
              >
                {s.current ? 'You will be signed out here.' : 'That browser is signed out at its next request.'}
              </ConfirmedWriteButton>
            </td>
          </tr>
        )}
      </TableSection>
      {dialog}
    </>
  );
}
