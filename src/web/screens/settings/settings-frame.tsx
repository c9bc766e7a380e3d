// Settings screens share a heading eyebrow and a navigation between them.
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { can, useMembership } from '../../api/session.ts';
import { PageHeader } from '../../components/page.tsx';
import { wsPath } from '../links/paths.ts';

const SECTIONS = [
  { path: '/settings', label: 'General' },
  { path: '/settings/keys', label: 'API keys' },
  { path: '/settings/members', label: 'Members' },
  { path: '/settings/domains', label: 'Domains' },
  { path: '/settings/tags', label: 'Tags' },
  { path: '/settings/campaigns', label: 'Campaigns' },
  { path: '/settings/webhooks', label: 'Webhooks' },
  { path: '/settings/sso', label: 'Single sign-on' },
  // Only OWNER and ADMIN read the audit log (the API answers others 403).
  { path: '/settings/audit', label: 'Audit log', administer: true },
];

export function SettingsFrame({
  workspaceId,
  title,
  children,
  actions,
}: {
  workspaceId: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  const [location] = useLocation();
  const role = useMembership(workspaceId)?.role;
  const shown = SECTIONS.filter((s) => !s.administer || (role && can.administer(role)));
  return (
    <>
      <PageHeader title={title} eyebrow="Settings" actions={actions} />
      <div className="settings">
        <nav className="subnav" aria-label="Settings">
          <ul>
            {shown.map((s) => {
              const href = wsPath(workspaceId, s.path);
              return (
                <li key={s.path}>
                  <Link href={href} aria-current={location === href ? 'page' : undefined}>
                    {s.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <div className="settings-body">{children}</div>
      </div>
    </>
  );
}
